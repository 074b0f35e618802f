"""pytest for python/oclreduction.py on the first OpenCL device (POCL in CI).

Data are exact in any order (integers; floats that are multiples of 1/4
with small partial sums, products of +-1 and powers of two), so every
comparison with NumPy is bit for bit.
"""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction

DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]
OPS = ["sum", "prod", "min", "max", "and", "or", "xor"]
NUMPY = {
    "sum": lambda a: a.sum(dtype=a.dtype),
    "prod": lambda a: a.prod(dtype=a.dtype),
    "min": np.min,
    "max": np.max,
    "and": np.bitwise_and.reduce,
    "or": np.bitwise_or.reduce,
    "xor": np.bitwise_xor.reduce,
}


@pytest.fixture(scope="module")
def queue():
    device = cl.get_platforms()[0].get_devices()[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    # Keep the context referenced while the queue lives: some runtimes (Intel's
    # CPU runtime) free it with the last handle although a queue still uses it.
    yield queue
    del ctx


def data(dtype, op, n, seed=7):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if op == "prod":
        v = rng.choice([1, 1, 1, -1, 3] if dt.kind == "i" else [1, 1, 3], n)
        if dt.kind == "f":
            v = rng.choice([1.0, -1.0, 2.0, 0.5], n)
        return v.astype(dt)
    if dt.kind == "f":
        return (rng.integers(-100, 100, n) / 4).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min // 2, info.max // 2, n, dtype=dt, endpoint=True)


def has_fp64(queue):
    return queue.device.double_fp_config != 0


def test_version():
    assert oclreduction.version().count(".") == 2


def test_status_constants_match_the_library():
    name = oclreduction._library().ocr_status_name
    assert name(oclreduction.OK) == b"ok"
    assert name(oclreduction.USAGE) == b"invalid argument"
    assert name(oclreduction.BUILD) == b"kernel build failed"
    assert name(oclreduction.IO) == b"file error"
    assert name(oclreduction.IO + 1) == b"unknown status"  # no status the module lacks


@pytest.mark.parametrize("n", [1, 3, 4103, 100003])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_reduce_matches_numpy(queue, dtype, op, n):
    dt = np.dtype(dtype)
    if op in ("and", "or", "xor") and dt.kind == "f":
        pytest.skip("bitwise operators need integers")
    if dt == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")
    host = data(dt, op, n)
    with np.errstate(over="ignore"):
        want = NUMPY[op](host)
    got = oclreduction.reduce(queue, cla.to_device(queue, host), op)
    assert got.dtype == dt
    assert got.tobytes() == np.asarray(want, dtype=dt).tobytes(), (got, want)


def test_offset_async_and_wait_list(queue):
    ctx = queue.context
    n = 50000
    host = data(np.int32, "sum", n)
    a = cla.to_device(queue, host)
    with oclreduction.Reducer(ctx, np.int32, "sum") as r:
        align = queue.device.mem_base_addr_align // 8 // 4
        assert r.reduce(queue, a, offset=align) == host[align:].sum(dtype=np.int32)
        # A sliced array (its offset inside the buffer) works the same way,
        # at any offset.
        for k in (align, 1, 3, align + 5):
            assert r.reduce(queue, a[k:]) == host[k:].sum(dtype=np.int32), k
            assert r.reduce(queue, a[k:k + 7]) == host[k:k + 7].sum(dtype=np.int32), k
        # The async call waits for its wait list: the data arrive after it was enqueued.
        gate = cl.UserEvent(ctx)
        out = cla.zeros(queue, 1, np.int32)
        zeros = cla.zeros(queue, n, np.int32)
        queue.finish()  # the zeros are written before the copy below overwrites them
        ev = r.reduce_async(queue, zeros, out, wait_for=[gate])
        assert ev.command_execution_status != cl.command_execution_status.COMPLETE
        q2 = cl.CommandQueue(ctx)
        cl.enqueue_copy(q2, zeros.data, host).wait()
        gate.set_status(cl.command_execution_status.COMPLETE)
        ev.wait()
        assert out.get()[0] == host.sum(dtype=np.int32)


def test_errors_raise_and_print_nothing(queue, capfd):
    ctx = queue.context
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    with pytest.raises(oclreduction.OcrError) as e:
        oclreduction.Reducer(ctx, np.float32, "xor")
    assert e.value.status == oclreduction.USAGE and "integer type" in e.value.message
    assert e.value.status_name == "invalid argument"
    with pytest.raises(oclreduction.OcrError) as e:
        oclreduction.Reducer(ctx, np.int32, "sum", kernel_dir="/nonexistent")
    assert e.value.status == oclreduction.IO and "not found" in e.value.message
    r = oclreduction.Reducer(ctx, np.int32, "sum")
    with pytest.raises(oclreduction.OcrError) as e:
        r.reduce(queue, a.base_data, n=0)
    assert e.value.status == oclreduction.USAGE and "at least 1" in e.value.message
    with pytest.raises(oclreduction.OcrError) as e:
        r.reduce(queue, a.base_data, n=11)
    assert e.value.status == oclreduction.USAGE and "beyond the buffer" in e.value.message
    with pytest.raises(TypeError):
        r.reduce(queue, cla.zeros(queue, 4, np.float32))
    assert r.reduce(queue, a) == 45
    out, err = capfd.readouterr()
    assert out == "" and err == ""
