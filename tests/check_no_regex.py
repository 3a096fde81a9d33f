"""Fails, naming each file and line, where code under the given folders uses std::regex:
libstdc++'s matcher recurses once per character, so a long value from a user (a 100,000-character
resources.cpu) overflowed the stack of the CLI and the operator alike. The short grammars of
user input have scanners instead (base/text_scan.h). Comments may name it.

Usage: python3 tests/check_no_regex.py FOLDER..."""

import os
import re
import sys

USE = re.compile(r"#\s*include\s*<regex>|\bstd::(regex|wregex|smatch|cmatch|sregex_iterator|regex_\w+)\b")


def uses(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            code = line.split("//", 1)[0]
            if USE.search(code):
                yield number, line.strip()


def main(folders):
    found = 0
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".cpp", ".hpp")):
                    continue
                path = os.path.join(root, name)
                for number, line in uses(path):
                    print(f"{path}:{number}: std::regex on a path that may see user input: {line}")
                    found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
