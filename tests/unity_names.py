"""Fails when two files compiled together in one unity batch give a file-local function the
same name.

The build compiles each target's files in batches (CMAKE_UNITY_BUILD): every file of a batch is
#included into one translation unit, so the functions each file keeps to itself (in an
anonymous namespace, or `static`) meet there. The same name with the same parameters is a
compile error; the same name with other parameters is an overload set, and a call meant for
one file's function may silently resolve to the other's. This check names such pairs, so that
one of them is renamed. Classes, constants and aliases of the same name are compile errors
already and are not checked here.

Usage: python3 unity_names.py BUILD_DIR     (exit 1 naming each clash)
       python3 unity_names.py --self-test
"""

import glob
import os
import re
import sys

INCLUDE = re.compile(r'^#include\s+"([^"]+)"', re.M)
# The name before the first parenthesis, unqualified: `Foo::Bar(` defines a member, not a function.
IDENTIFIER_CALL = re.compile(r"(?<![\w:])([A-Za-z_]\w*)\s*\(")
NOT_NAMES = {"decltype", "sizeof", "alignof", "noexcept", "operator", "static_assert", "requires"}


def code_only(text):
    """`text` with comments, string and character literals blanked (raw strings included), so
    that braces and parentheses inside them are not counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren]
            j = text.find(")" + delimiter + '"', open_paren)
            out.append('""')
            i = n if j < 0 else j + len(delimiter) + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def local_functions(text):
    """Names of the functions a file declares in an anonymous namespace or as `static` at
    namespace scope."""
    code = code_only(text)
    names, scopes, statement = set(), [], []  # scopes: "anonymous", "namespace" or "other"

    def at_namespace_scope():
        return all(scope != "other" for scope in scopes)

    def consider(header, ends_a_body):
        header = " ".join(header.split())
        in_anonymous = "anonymous" in scopes
        if not header or header.startswith(("#", "using ", "typedef ", "template <", "namespace", "class ",
                                             "struct ", "enum ", "union ", "friend ")) and "(" not in header:
            return
        header = re.sub(r"^template\s*<[^{;]*?>\s*", "", header)
        if not (in_anonymous or header.startswith("static ")):
            return
        before_paren = header.split("(", 1)[0]
        if "=" in before_paren or header.startswith(("class ", "struct ", "enum ", "union ")):
            return  # a variable (a lambda, an initialised object), or a type
        match = IDENTIFIER_CALL.search(header)
        if match and match.group(1) not in NOT_NAMES and not match.group(1).isupper():
            names.add(match.group(1))

    i = 0
    while i < len(code):
        c = code[i]
        if c == "{":
            header = "".join(statement).strip()
            if at_namespace_scope():
                if re.fullmatch(r"(inline\s+)?namespace", header):
                    scopes.append("anonymous")
                elif header.startswith(("namespace ", "inline namespace ")) or header == 'extern "C"':
                    scopes.append("namespace")
                else:
                    consider(header, True)
                    scopes.append("other")
            else:
                scopes.append("other")
            statement = []
        elif c == "}":
            if scopes:
                scopes.pop()
            statement = []
        elif c == ";":
            if at_namespace_scope():
                consider("".join(statement).strip(), False)
            statement = []
        elif c == "\n" and at_namespace_scope() and "".join(statement).lstrip().startswith("#"):
            statement = []  # a preprocessor line ends here
        elif at_namespace_scope():
            statement.append(c)
        i += 1
    return names


def clashes(batches):
    """[(batch, name, files)] for each name that two or more files of one batch give a local function."""
    found = []
    for batch, files in sorted(batches.items()):
        owners = {}
        for path in files:
            with open(path, errors="replace") as f:
                for name in local_functions(f.read()):
                    owners.setdefault(name, []).append(path)
        found += [(batch, name, paths) for name, paths in sorted(owners.items()) if len(paths) > 1]
    return found


def unity_batches(build_dir):
    """The batches the build compiles: a batch file a moved or removed target left behind in an
    incremental build tree is not one (build.ninja no longer names it)."""
    ninja = os.path.join(build_dir, "build.ninja")
    built = None
    if os.path.exists(ninja):
        with open(ninja) as f:
            built = set(re.findall(r"\S*/Unity/unity_\d+_cxx\.cxx(?=\.o\b)", f.read()))
    batches = {}
    for batch in glob.glob(os.path.join(build_dir, "**", "Unity", "unity_*.cxx"), recursive=True):
        relative = os.path.relpath(batch, build_dir)
        if built is not None and relative not in built:
            continue
        with open(batch) as f:
            batches[relative] = INCLUDE.findall(f.read())
    return batches


SELF_TEST = {
    "a.cc": 'namespace ergobench {\nnamespace {\nint Parse(const std::string& s) { return 1; }\n'
            'const char kText[] = "namespace { int Fake(";\nstruct Helper { int Inside(int x) { return x; } };\n'
            'auto kLambda = [](int x) { return x; };\nint Helper::Outside(int x) { return x; }\n'
            '}  // namespace\nint Public(int x) { return x; }\n}\n',
    "b.cc": 'namespace ergobench {\nstatic int Parse(std::string_view s) { return 2; }\n'
            'namespace {\ntemplate <typename T>\nT Twice(T x) { return x + x; }\nTEST(Suite, Name) {}\n}\n}\n',
}


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text in SELF_TEST.items():
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], "w") as f:
                f.write(text)
        assert local_functions(SELF_TEST["a.cc"]) == {"Parse"}, local_functions(SELF_TEST["a.cc"])
        assert local_functions(SELF_TEST["b.cc"]) == {"Parse", "Twice"}, local_functions(SELF_TEST["b.cc"])
        assert [(n, len(p)) for _, n, p in clashes({"batch": paths})] == [("Parse", 2)]
    print("unity_names: self-test passed")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    batches = unity_batches(argv[0])
    if not batches:
        print(f"unity_names: no unity batch under {argv[0]} (ERGOBENCH_UNITY off?): nothing to check")
        return 0
    found = clashes(batches)
    for batch, name, paths in found:
        print(f"{batch}: {name}() is local to each of {', '.join(paths)}; rename one")
    print(f"unity_names: {len(batches)} batches, {len(found)} clash(es)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
