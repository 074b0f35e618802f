#!/usr/bin/env python3
"""docs_links_test.py SRC [PAGE...] - every relative link of each page
(default: every .md of SRC that git does not ignore, tests/fixtures/
aside) leads somewhere: the file or
folder exists in SRC and, for a link into a Markdown page with #anchor, that
page has a heading of that anchor (GitHub's rule: lower case, punctuation
dropped, spaces to hyphens) or an <a id=...>. Each repo path a page names in its text
(cl/lab/race_tail.cl, `.ci/run`), one whose first part is a top-level entry
of SRC, exists too. Prints each dead link or path; exit 1 if there is one.
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
PATH = re.compile(r"(?<![\w./\-~$<@])(\.?[A-Za-z0-9_][A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_.\-*]+)*/?)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*:", re.I)


def slug(heading):
    s = re.sub(r"[`*]|<[^>]*>", "", heading.strip()).lower()
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, out, fence = {}, set(), False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                fence = not fence
            m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            out.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else f"{s}-{n}")
        cache[path] = out
    return cache[path]


def top_entries(root):
    """The top-level names a repo path may start with (a build folder is not one)."""
    return {e for e in os.listdir(root) if not e.startswith("build") and e != ".git"}


def check_links(root, page, text):
    bad, n = [], 0
    here = os.path.dirname(os.path.join(root, page))
    for m in LINK.finditer(text):
        target = m.group(1)
        if SCHEME.match(target):
            continue
        n += 1
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(here, path)) if path else os.path.join(root, page)
        if not os.path.exists(full):
            bad.append(f"{page}: link ({target}): {os.path.relpath(full, root)} does not exist")
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            bad.append(f"{page}: link ({target}): {os.path.relpath(full, root)} has no heading #{anchor}")
    return bad, n


def check_paths(root, page, text, top):
    bad, n, seen = [], 0, set()
    text = LINK.sub(lambda m: m.group(0).split("](")[0], text)  # the links are checked above
    text = re.sub(r"https?://\S+", "", text)
    for m in PATH.finditer(text):
        p = m.group(1).rstrip(".")
        head = p.split("/")[0]
        if head not in top or ("/" not in p and "." not in head[1:]) or p in seen:
            continue  # a bare word that happens to be a folder's name ("bench") is prose
        seen.add(p)
        n += 1
        if "*" in p:
            continue
        if not os.path.exists(os.path.join(root, p)):
            bad.append(f"{page}: names {p}, which is not in the tree")
    return bad, n


def markdown_pages(root):
    """Every .md of the tree that git does not ignore (so no build folder's,
    no bench/out/'s), test fixtures aside; without git, a walk that skips
    build folders and hidden ones."""
    try:
        r = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                            "--", "*.md"], capture_output=True, text=True)
        listed = r.stdout if r.returncode == 0 else ""
    except OSError:  # no git here
        listed = ""
    if listed:
        pages = listed.strip("\0").split("\0")
    else:
        pages = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not (x.startswith("build") or x.startswith(".") or x == "out")]
            pages += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".md")]
    return [p for p in pages if not p.startswith("tests/fixtures/") and os.path.exists(os.path.join(root, p))]


def main():
    root = sys.argv[1]
    pages = sys.argv[2:]
    if not pages:
        pages = sorted(markdown_pages(root))
    top = top_entries(root)
    bad, links, paths = [], 0, 0
    for page in pages:
        text = open(os.path.join(root, page), encoding="utf-8").read()
        b, n = check_links(root, page, text)
        bad += b
        links += n
        if page == "README.md":
            b, n = check_paths(root, page, text, top)
            bad += b
            paths += n
    for b in bad:
        print("DEAD: " + b)
    print(("FAIL" if bad else "ok") + f": {links} relative links in {len(pages)} pages, "
          f"{paths} paths README.md names, {len(bad)} dead")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
