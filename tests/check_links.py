"""Fails, naming each file and line, where a relative link of a Markdown file does not resolve:
the file it names is missing, or the heading its #anchor names is not in that file (anchors as
GitHub makes them from headings). Links to other sites and mail are not followed.

Usage: python3 tests/check_links.py PATH...   (Markdown files, or folders searched for them)"""

import functools
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation but hyphens and underscores
    dropped, spaces made hyphens."""
    text = re.sub(r"`|\*\*|\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def outside_code(path):
    """(line number, line) of a Markdown file, less fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors of a file's headings, read once however many links point into it."""
    found, seen = set(), {}
    for _, line in outside_code(path):
        match = HEADING.match(line)
        if match:
            base = anchor(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def broken_links(path):
    for number, line in outside_code(path):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto:
            file_part, _, fragment = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(linked):
                yield number, target, "no such file"
            elif fragment and linked.endswith(".md") and fragment not in anchors(linked):
                yield number, target, f"no heading #{fragment} in {linked}"


def markdown_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                yield from (os.path.join(root, name) for name in sorted(files) if name.endswith(".md"))
        else:
            yield path


def main(paths):
    found = 0
    for path in markdown_files(paths):
        for number, target, why in broken_links(path):
            print(f"{path}:{number}: broken link {target}: {why}")
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
