#!/usr/bin/env python3
"""floors_test.py BUILD - the library's floors as its object files use them.

host/lib's folders are floors, bottom up: core, opencl, reducer, run, report
(host/lib/README.md). A file
may use what its own floor or a floor below defines, never what one above
does (the build already refuses an upward #include: each floor sees only the
private headers below it; this also catches a call declared by hand), and no
files use each other in a circle. Reads the archive's objects
(BUILD/CMakeFiles/ocr_<floor>.dir, ocr_readback.dir on the reducer floor)
with nm. Prints the floors and any fault; exit 1 on an upward use or a circle.
"""
import glob
import os
import subprocess
import sys

FLOORS = ["core", "opencl", "reducer", "run", "report"]
DIRS = {f: [f] for f in FLOORS}
DIRS["reducer"].append("readback")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def symbols(obj):
    """The global symbols obj defines and those it uses."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            used.add(f[0])
        elif f[1] in "TDBRCGSV":
            defined.add(f[0])
    return defined, used


def circles(edges):
    """The strongly connected sets of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    build = sys.argv[1]
    floor_of, defs, uses = {}, {}, {}
    for level, floor in enumerate(FLOORS):
        for d in DIRS[floor]:
            top = os.path.join(build, "CMakeFiles", f"ocr_{d}.dir")
            for obj in glob.glob(os.path.join(top, "**", "*.o"), recursive=True):
                name = os.path.relpath(obj, top)[: -len(".o")]
                if name.startswith("host/") and not os.path.exists(os.path.join(SOURCE, name)):
                    continue  # a file that moved since this build tree last built it
                floor_of[name] = level
                defs[name], uses[name] = symbols(obj)
    if not floor_of:
        sys.exit(f"no object files under {build}/CMakeFiles/ocr_*.dir: build the library first")
    owner = {s: f for f, ds in defs.items() for s in ds}
    edges, bad = {}, 0
    for f in sorted(uses):
        for s in sorted(uses[f]):
            g = owner.get(s)
            if g is None or g == f:
                continue
            edges.setdefault(f, set()).add(g)
            if floor_of[g] > floor_of[f]:
                print(f"UP: {f} ({FLOORS[floor_of[f]]}) uses {s} of {g} ({FLOORS[floor_of[g]]})")
                bad = 1
    for c in circles(edges):
        print("CIRCLE: " + " <-> ".join(c))
        bad = 1
    for level, floor in reversed(list(enumerate(FLOORS))):
        n = sum(1 for f in floor_of if floor_of[f] == level)
        print(f"floor {level + 1} {floor}: {n} files")
    nuses = sum(len(e) for e in edges.values())
    print(("FAIL" if bad else "ok") + f": {len(floor_of)} files, {nuses} uses between files")
    return bad


if __name__ == "__main__":
    sys.exit(main())
