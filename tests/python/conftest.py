"""Fixtures for the oclreduction tests: the first OpenCL device (POCL in CI).

The package under test is whatever `import oclreduction` finds: the build
tree's (ctest python.pytest: PYTHONPATH=build/python) or an installed wheel
(python.wheel). OCR_EXPECT_PACKAGE_DIR, when set, names the directory it must
come from (test_installed.py), so the source tree is never tested by mistake.
"""
import os
import weakref

import numpy as np
import pyopencl as cl
import pytest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]
OPS = ["sum", "prod", "min", "max", "bitwise_and", "bitwise_or", "bitwise_xor"]


@pytest.fixture(scope="session")
def context():
    device = cl.get_platforms()[0].get_devices()[0]
    return cl.Context([device])


@pytest.fixture(scope="session")
def queue(context):
    q = cl.CommandQueue(context)
    yield q
    q.finish()


@pytest.fixture(scope="session")
def ooo_queue(context):
    props = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    if not context.devices[0].queue_properties & props:
        pytest.skip("the device has no out-of-order queues")
    q = cl.CommandQueue(context, properties=props)
    yield q
    q.finish()


# Work left in flight is finished when a test ends (the queues it made that
# are still alive) and when the session ends (the fixtures' queues): a
# process that exits while POCL compiles a kernel on a worker thread can die
# in LLVM as its exit handlers run (seen with PyOpenCL's own tests).
_MADE: "weakref.WeakSet[cl.CommandQueue]" = weakref.WeakSet()


class _Queue(cl.CommandQueue):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _MADE.add(self)


cl.CommandQueue = _Queue


@pytest.fixture(autouse=True)
def _finish_queues():
    yield
    for q in list(_MADE):
        q.finish()


def has_fp64(queue):
    return queue.device.double_fp_config != 0


def data(dtype, op, n, seed=7):
    """Values whose reduction is exact in any order: integers (sums wrap alike
    everywhere), floats that are multiples of 1/4 with small partial sums,
    products of +-1 with at most a few 2s and 1/2s (or 1 and 3 for integers)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if op == "prod":
        if dt.kind == "f":
            # +-1 with a few 2s and halves: any subset's product stays within
            # the type's range, so no order can overflow to inf in one group
            # and underflow to 0 in another (inf * 0 = nan)
            x = rng.choice([1.0, -1.0], n)
            k = min(n // 4, (np.finfo(dt).maxexp - 4) // 2)
            at = rng.permutation(n)[: 2 * k]
            x[at[:k]] *= 2.0
            x[at[k:]] *= 0.5
            return x.astype(dt)
        return rng.choice([1, 1, 1, -1, 3] if dt.kind == "i" else [1, 1, 3], n).astype(dt)
    if dt.kind == "f":
        return (rng.integers(-100, 100, n) / 4).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min // 2, info.max // 2, n, dtype=dt, endpoint=True)


def patch_kernel(monkeypatch, name, old, new):
    """cl/<name> as the package reads it, with old (which must be there)
    replaced by new, until the test ends (a mutant of a shipped kernel)."""
    from oclreduction import _kernels
    text = _kernels.source(name)
    assert old in text, f"{name} no longer holds {old!r}: update the mutant"
    monkeypatch.setitem(_kernels._texts, name, text.replace(old, new))
