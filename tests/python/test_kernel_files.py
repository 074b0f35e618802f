"""The package's OpenCL C lives in its cl/ folder, never in a .py file
(issue 48), and every file of cl/ is read by a case of oclgrind_kernels.py
(which python.oclgrind_kernels runs under oclgrind; here on the default
device, so a kernel no case reads fails the quick tests too)."""
import os
import re

import pytest

import oclreduction
from oclreduction import _custom, _kernels

PACKAGE = os.path.dirname(os.path.abspath(oclreduction.__file__))
# What only OpenCL C holds: a kernel, a work-item's index, a barrier.
OPENCL = re.compile(r"__kernel|get_global_id|get_local_id|barrier\s*\(")


def test_no_opencl_in_python_files():
    found = []
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(".py"):
            with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if OPENCL.search(line):
                        found.append(f"{name}:{n}: {line.strip()}")
    assert not found, "OpenCL C in a .py file (put it in cl/):\n" + "\n".join(found)


def test_the_grep_finds_kernel_text():
    """The pattern above finds what it looks for (a test that can fail)."""
    assert OPENCL.search(_kernels.source("custom.cl"))
    assert OPENCL.search("    barrier(CLK_LOCAL_MEM_FENCE);")
    assert not OPENCL.search("def barrier_free(): pass")


def test_the_kernels_are_shipped():
    assert _kernels.files() == sorted(f for f in os.listdir(os.path.join(PACKAGE, "cl"))
                                      if f.endswith(".cl"))
    assert {"custom.cl", "stats.cl"} <= set(_kernels.files())
    for name in _kernels.files():
        text = _kernels.source(name)
        assert text.startswith("/*\n * " + name[:-3] + " - "), \
            f"cl/{name} opens with a comment naming it: what it does, why, what it costs"


def test_one_custom_template():
    """The package's custom.cl is the C library's cl/custom.cl, byte for
    byte (one template: the package prepends its prelude, never edits it),
    and the source tree holds no second one (skipped where the tests run
    without the checkout beside them)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not os.path.isfile(os.path.join(root, "cl", "custom.cl")):
        pytest.skip("no checkout beside the tests")
    with open(os.path.join(root, "cl", "custom.cl"), encoding="utf-8") as f:
        assert _kernels.source("custom.cl") == f.read()
    assert not os.path.exists(os.path.join(root, "python", "oclreduction", "cl", "custom.cl"))
    assert "@" not in _kernels.source("custom.cl").split("*/", 1)[1]  # no placeholder


def test_every_kernel_file_is_run_by_a_case(monkeypatch):
    """oclgrind_kernels.py's cases answer right and read every file of cl/."""
    import oclgrind_kernels
    monkeypatch.setattr(_custom, "_blocked", _custom._blocked)  # main() sets it
    monkeypatch.setattr(_custom, "_specs", {})  # the specs read their files afresh
    monkeypatch.setattr(_kernels, "loaded", set())
    assert oclgrind_kernels.main() == 0


def test_a_kernel_no_case_reads_fails(monkeypatch, capsys):
    import oclgrind_kernels
    monkeypatch.setattr(_custom, "_blocked", _custom._blocked)
    monkeypatch.setattr(_kernels, "files", lambda: sorted(os.listdir(_kernels.DIR)) + ["new.cl"])
    monkeypatch.setattr(_kernels, "loaded", set())
    assert oclgrind_kernels.main() == 1
    assert "no case read new.cl" in capsys.readouterr().out
