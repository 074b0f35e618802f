"""PyOpenCL's own reduction tests, run with pyopencl.array.sum/min/max
(and ReductionKernel, dot, vdot, subset_dot) replaced by oclreduction's.

    pyopencl_suite.py [WORKDIR]

Fetches the sdist of the installed PyOpenCL version (from PyPI's JSON API,
its SHA-256 checked), takes its test/test_algorithm.py and test/test_array.py, and
runs the reduction tests there under pytest with a conftest that patches the
functions in before the test modules are imported (sum, min, max, dot, vdot,
subset_dot and pyopencl.reduction.ReductionKernel, which PyOpenCL's tests
import inside each test); the run fails unless
oclreduction's functions were called. Exit status: pytest's; 77 (SKIPPED)
when PyPI cannot be reached. Needs the package on PYTHONPATH, pytest and
mako (PyOpenCL's dot, vdot and cumsum in the same tests).
"""
import os
import socket
import subprocess
import sys
import tarfile
import tempfile

SELECTION = ["test_algorithm.py::test_sum", "test_algorithm.py::test_minmax",
             "test_algorithm.py::test_sum_without_data",
             "test_algorithm.py::test_reduction_not_first_argument",
             "test_algorithm.py::test_dot", "test_algorithm.py::test_struct_reduce",
             "test_array.py::test_outoforderqueue_reductions",
             "test_array.py::test_empty_reductions_vs_numpy",
             "test_array.py::test_reduction_nan_handling",
             "test_array.py::test_dtype_conversions"]

CONFTEST = '''
import pyopencl
import pyopencl.array
import pyopencl.reduction
import pytest
import oclreduction

# Every queue a test makes is finished when the test ends: some tests leave
# work in flight (test_dtype_conversions checks only the dtype of cumsum's
# result), and a process that exits while POCL compiles a kernel for it on a
# worker thread can die in LLVM as its exit handlers run (seen: SIGSEGV in
# scan_final_update's code generation, after all tests had passed).
_MADE = []


class _Queue(pyopencl.CommandQueue):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _MADE.append(self)


pyopencl.CommandQueue = _Queue


@pytest.fixture(autouse=True)
def _finish_queues():
    yield
    while _MADE:
        _MADE.pop().finish()

CALLS = {"n": 0}


def _counted(f):
    def g(*args, **kwargs):
        CALLS["n"] += 1
        return f(*args, **kwargs)
    g.__name__, g.__doc__, g.__wrapped__ = f.__name__, f.__doc__, f
    return g


for _name in ("sum", "min", "max", "dot", "vdot", "subset_dot"):
    setattr(pyopencl.array, _name, _counted(getattr(oclreduction, _name)))


class _Kernel(oclreduction.ReductionKernel):  # PyOpenCL's own uses of it count too
    def __call__(self, *args, **kwargs):
        CALLS["n"] += 1
        return super().__call__(*args, **kwargs)


pyopencl.reduction.ReductionKernel = _Kernel


def pytest_sessionfinish(session, exitstatus):
    if CALLS["n"] == 0:  # the patch did not take: PyOpenCL's own functions were tested
        print("\\nno call reached oclreduction: the patch did not take")
        session.exitstatus = 1
    else:
        print(f"\\n{CALLS['n']} calls of oclreduction's sum/min/max/dot/vdot/subset_dot/"
              "ReductionKernel")
'''


def pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=10).close()
        return True
    except OSError:
        return False


def fetch_tests(version: str, work: str) -> str:
    """The sdist's test/ directory for this PyOpenCL version, extracted under
    work. The sdist comes from PyPI's JSON API, checked against its SHA-256
    there (pip download would prepare the sdist's metadata, which needs
    PyOpenCL's build backend)."""
    import hashlib
    import json
    import urllib.request
    with urllib.request.urlopen("https://pypi.org/pypi/pyopencl/json", timeout=120) as r:
        meta = json.load(r)
    sdist = next(u for u in meta["releases"][version] if u["packagetype"] == "sdist")
    path = os.path.join(work, sdist["filename"])
    with urllib.request.urlopen(sdist["url"], timeout=300) as r:
        data = r.read()
    if hashlib.sha256(data).hexdigest() != sdist["digests"]["sha256"]:
        raise RuntimeError(f"{sdist['url']}: the SHA-256 is not PyPI's")
    with open(path, "wb") as f:
        f.write(data)
    with tarfile.open(path) as tar:
        top = tar.getnames()[0].split("/")[0]
        for name in ("test_algorithm.py", "test_array.py"):
            member = tar.getmember(f"{top}/test/{name}")
            with open(os.path.join(work, name), "wb") as f:
                f.write(tar.extractfile(member).read())
    return work


def main() -> int:
    import pyopencl
    import oclreduction
    version = pyopencl.VERSION_TEXT
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ocr-pyopencl-tests-")
    os.makedirs(work, exist_ok=True)
    try:
        import mako  # noqa: F401  (test_sum and test_minmax skip without it)
    except ImportError:
        print("SKIPPED: no mako (PyOpenCL's reduction tests need it: python3-mako)")
        return 77
    if not pypi_reachable():
        print("SKIPPED: PyPI (pypi.org:443) cannot be reached to fetch PyOpenCL's tests")
        return 77
    fetch_tests(version, work)
    with open(os.path.join(work, "conftest.py"), "w") as f:
        f.write(CONFTEST)
    print(f"PyOpenCL {version}'s tests against oclreduction {oclreduction.__version__} "
          f"({oclreduction.__file__}) in {work}", flush=True)
    env = dict(os.environ)  # the same package, from the test directory too
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(oclreduction.__file__)))]
        + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    rc = subprocess.run([sys.executable, "-X", "faulthandler", "-m", "pytest", "-p",
                         "no:cacheprovider", "-q", "-rfEsxX", *SELECTION], cwd=work,
                        env=env).returncode
    if rc:
        print(f"pytest exited {rc}" + (f" (signal {-rc})" if rc < 0 else ""))
    return 1 if rc < 0 else rc


if __name__ == "__main__":
    sys.exit(main())
