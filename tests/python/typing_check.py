"""The package's type hints under mypy (python.typing): the package itself
checks clean, typing/good.py (every public call) is accepted, and each line
of typing/bad.py is refused with the error code its comment names. Exit 77
(SKIPPED) without mypy."""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def mypy(pkg_parent, *args):
    env = dict(os.environ, MYPYPATH=pkg_parent)
    cmd = [shutil.which("mypy"), "--python-executable", sys.executable, "--no-incremental",
           "--cache-dir", os.devnull, "--ignore-missing-imports", "--show-error-codes",
           "--no-error-summary", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=pkg_parent)
    return out.returncode, out.stdout + out.stderr


def main():
    if shutil.which("mypy") is None:
        print("SKIPPED: mypy is not installed (Debian: apt-get install mypy)")
        return 77
    import oclreduction
    pkg = os.path.dirname(oclreduction.__file__)
    parent = os.path.dirname(pkg)
    rc, out = mypy(parent, "-p", "oclreduction")
    assert rc == 0, f"the package does not check clean:\n{out}"
    rc, out = mypy(parent, os.path.join(HERE, "typing", "good.py"))
    assert rc == 0, f"good.py is refused:\n{out}"
    bad = os.path.join(HERE, "typing", "bad.py")
    rc, out = mypy(parent, bad)
    assert rc == 1, out
    want = {}
    for no, line in enumerate(open(bad, encoding="utf-8"), 1):
        m = re.search(r"# E: ([a-z-]+)$", line)
        if m:
            want[no] = m.group(1)
    got = {}
    for line in out.splitlines():
        m = re.match(r".*bad\.py:(\d+): error: .*\[([a-z-]+)\]$", line)
        if m:
            got.setdefault(int(m.group(1)), set()).add(m.group(2))
    for no, code in want.items():
        assert code in got.get(no, set()), f"bad.py:{no}: no [{code}] error\n{out}"
    extra = set(got) - set(want)
    assert not extra, f"errors on lines that are right: {sorted(extra)}\n{out}"
    print(f"python.typing: package clean ({pkg}), good.py accepted, {len(want)} misuses refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
