#!/usr/bin/env python3
"""layout_paths_test.py SRC - every path that docs/layout.md's trees (and
README.md's Layout block, if it has one) name exists in the source tree SRC.

A tree is a fenced block: every one of docs/layout.md, and README.md's under
"## Layout" where there is that heading (the README links to docs/layout.md
instead; docs_links_test.py checks the paths it names). A line that starts (indented at most 4) with a path is an
entry; an indented entry lies in the last entry above it that is indented
less ("  core/" under "host/lib/"), and names separated by ", " are entries
alike ("cli.c, cli.h"). The entry must exist. Each file or folder name its
description names must exist too: one with a "/" inside whose first part is
a top-level entry (docs/labs/grading.md) from SRC, any other under the
entry's folder ("tests/: pytest" under python/ means python/tests). Prints
each stale path; exit 1 if there is one.
"""
import os
import re
import sys

FILE = r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\.(?:c|h|cl|py|md|sh|cmake|txt|toml|json|in|1)"
NAME = re.compile(r"(?<![\w./\-])((?:[A-Za-z0-9_.\-]+/)+(?:" + FILE + r")?|" + FILE + r")(?![\w\-])")
ENTRY_INDENT = 4


def blocks(path, after=None):
    """The fenced blocks of path (only the first after the heading `after`)."""
    out, cur, seen = [], None, after is None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not seen:
            seen = line.strip() == after
            continue
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                out.append(cur)
                cur = None
                if after is not None:
                    break
        elif cur is not None:
            cur.append(line)
    return out


def under(root, rel, name):
    """Whether name (a file, or a folder ending in /) lies anywhere under rel."""
    base = os.path.join(root, rel)
    if os.path.exists(os.path.join(base, name)):
        return True
    want = name.rstrip("/")
    for d, dirs, files in os.walk(base):
        dirs[:] = [x for x in dirs if x not in (".git", "build")]
        if (name.endswith("/") and want in dirs) or (not name.endswith("/") and want in files):
            return True
    return False


def check(root, where, lines, top):
    bad, stack, checked = [], [], 0  # stack: (indent, path of the entry)
    for no, line in enumerate(lines, 1):
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        if not text:
            continue
        entry_names, desc = [], text
        if indent <= ENTRY_INDENT:
            words = text.split()
            i = 0
            while i < len(words):
                entry_names.append(words[i].rstrip(","))
                if not words[i].endswith(","):
                    break
                i += 1
            desc = " ".join(words[i + 1 :])
            while stack and stack[-1][0] >= indent:
                stack.pop()
            parent = stack[-1][1] if stack else ""
            for n in entry_names:
                p = os.path.join(parent, n)
                checked += 1
                if not os.path.exists(os.path.join(root, p)):
                    bad.append(f"{where}:{no}: {p} (an entry) is not in the tree")
            first = os.path.join(parent, entry_names[0])
            stack.append((indent, first))
        if not stack:
            continue
        entry = stack[-1][1]
        folder = entry if entry.endswith("/") else os.path.dirname(entry)
        for m in NAME.finditer(desc):
            n = m.group(1)
            if n.startswith("./") or n.startswith("../") or n.startswith("."):
                continue
            checked += 1
            head = n.split("/")[0] + "/"
            if "/" in n.rstrip("/") and head in top:
                ok = os.path.exists(os.path.join(root, n))
                shown = n
            else:
                ok = under(root, folder, n)
                shown = os.path.join(folder, n)
            if not ok:
                bad.append(f"{where}:{no}: {shown} (named in {entry}'s description) is not in the tree")
    return bad, checked


def main():
    root = sys.argv[1]
    top = {e + "/" for e in os.listdir(root) if os.path.isdir(os.path.join(root, e))}
    trees = [("README.md", b) for b in blocks(os.path.join(root, "README.md"), "## Layout")]
    trees += [("docs/layout.md", b) for b in blocks(os.path.join(root, "docs", "layout.md"))]
    if not any(where == "docs/layout.md" for where, _ in trees):
        sys.exit("FAIL: found no tree in docs/layout.md")
    bad, n = [], 0
    for where, lines in trees:
        b, c = check(root, where, lines, top)
        bad += b
        n += c
    for b in bad:
        print("STALE: " + b)
    print(("FAIL" if bad else "ok") + f": {n} paths named in {len(trees)} trees, {len(bad)} stale")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
