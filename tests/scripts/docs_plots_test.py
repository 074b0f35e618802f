#!/usr/bin/env python3
"""docs_plots_test.py SRC OUT - every picture of the docs is drawn by
bench/plot.py from committed data, by the command its page shows.

A page (README.md, docs/**/*.md) shows a picture as ![..](.../img/NAME.svg)
and gives its command in a ```sh block: a `bench/plot.py ... -o
docs/img/NAME.svg` line (lines ending in a backslash continue it). For each
picture under docs/img/: some page shows it, the same page holds its command,
the command's CSVs lie under bench/results/, the committed file is at most
100 KB; the command, run as the page gives it with --out-dir OUT, draws the
picture again (exit 0, at most 100 KB, an SVG) and the picture names its
axes (the command's --xlabel and --ylabel are text in it), as the committed
one does, with the same --title. Pixels are not
compared (gnuplot versions draw them differently). At least 4 pictures.
"""
import html
import os
import re
import shlex
import subprocess
import sys

LIMIT = 100 * 1024
IMG = re.compile(r"!\[[^\]]*\]\(((?:[^)\s]*/)?img/[^)\s]+)\)")


def pages(root):
    out = ["README.md"]
    for d, _, files in os.walk(os.path.join(root, "docs")):
        out += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".md")]
    return sorted(out)


def commands(text):
    """The bench/plot.py command lines of a page's ```sh blocks."""
    out, block, cur = [], False, ""
    for line in text.split("\n"):
        if line.startswith("```"):
            block = line.strip() == "```sh" if not block else False
            continue
        if not block:
            continue
        cur += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            if cur.startswith("bench/plot.py "):
                out.append(cur)
            cur = ""
    return out


def option(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


def check(root, out, page, cmd, fail):
    argv = shlex.split(cmd)
    target = option(argv, "-o")
    data = [a.split("=", 1)[-1] for a in argv[1:] if a.endswith(".csv")]
    if not data:
        fail(f"{page}: {target}: the command names no CSV")
    for d in data:
        if not d.startswith("bench/results/"):
            fail(f"{page}: {target}: {d} is not committed data under bench/results/")
    r = subprocess.run([sys.executable] + argv + ["--out-dir", out], cwd=root, capture_output=True, text=True)
    made = os.path.join(out, os.path.basename(target))
    if r.returncode != 0 or not os.path.exists(made):
        return fail(f"{page}: {cmd}\n  exit {r.returncode}: {r.stderr.strip()}")
    if os.path.getsize(made) > LIMIT or "<svg" not in open(made, encoding="utf-8").read():
        fail(f"{page}: {made}: {os.path.getsize(made)} bytes, or not an SVG")
    # The new picture names its axes; the committed one carries the same
    # labels and title (a command edited without drawing the picture again).
    for picture in (made, os.path.join(root, target)):
        words = text_of(picture)
        for opt in ("--xlabel", "--ylabel", "--title"):
            label = option(argv, opt)
            if not label:
                fail(f"{page}: {target}: the command gives no {opt}")
            elif label not in words:
                fail(f"{page}: {picture}: the picture does not show its {opt[2:]} '{label}'")


def text_of(svg):
    return html.unescape(re.sub(r"<[^>]+>", "", open(svg, encoding="utf-8").read()))


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    bad = []
    fail = bad.append
    shown, drawn = {}, {}  # picture -> page
    for page in pages(root):
        text = open(os.path.join(root, page), encoding="utf-8").read()
        for m in IMG.finditer(text):
            p = os.path.relpath(os.path.normpath(os.path.join(root, os.path.dirname(page), m.group(1))), root)
            shown.setdefault(p, set()).add(page)
        for c in commands(text):
            drawn.setdefault(option(shlex.split(c), "-o"), []).append((page, c))
    pictures = sorted(os.path.join("docs", "img", f) for f in os.listdir(os.path.join(root, "docs", "img")))
    for p in pictures:
        if os.path.getsize(os.path.join(root, p)) > LIMIT:
            fail(f"{p}: {os.path.getsize(os.path.join(root, p))} bytes, over {LIMIT}")
        if p not in shown:
            fail(f"{p}: no page shows it")
        here = [(pg, c) for pg, c in drawn.get(p, []) if pg in shown.get(p, ())]
        if not here:
            fail(f"{p}: no page that shows it gives its bench/plot.py command")
        for pg, c in here:
            check(root, out, pg, c, fail)
    for p, where in shown.items():
        if p not in pictures:
            fail(f"{', '.join(sorted(where))}: shows {p}, which is not under docs/img/")
    if len(pictures) < 4:
        fail(f"docs/img/ holds {len(pictures)} pictures, fewer than 4")
    for b in bad:
        print("FAIL: " + b)
    print(("FAIL" if bad else "ok") + f": {len(pictures)} pictures drawn again from their CSVs into {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
