"""oclreduction.Reducer: built once, reused; offsets, wait lists, the
library's errors (raised, never printed), and buffers of the wrong type
refused (never reinterpreted)."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest
from conftest import DTYPES, data, has_fp64

import oclreduction

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


def test_version():
    assert oclreduction.version().count(".") == 2
    assert oclreduction.version() == oclreduction.__version__


def test_status_constants_match_the_library():
    name = oclreduction._native.lib.ocr_status_name
    assert name(oclreduction.OK) == b"ok"
    assert name(oclreduction.USAGE) == b"invalid argument"
    assert name(oclreduction.BUILD) == b"kernel build failed"
    assert name(oclreduction.IO) == b"file error"
    assert name(oclreduction.IO + 1) == b"unknown status"  # no status the module lacks


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_reduce_matches_numpy(queue, dtype, op):
    dt = np.dtype(dtype)
    if op in ("and", "or", "xor") and dt.kind == "f":
        pytest.skip("bitwise operators need integers")
    if dt == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")
    r = oclreduction.Reducer(queue.context, dt, op)
    for n in (1, 3, 4103, 100003):
        host = data(dt, op, n)
        with np.errstate(over="ignore"):
            want = NUMPY[op](host)
        got = r.reduce(queue, cla.to_device(queue, host))
        assert isinstance(got, np.generic) and got.dtype == dt
        assert got.tobytes() == np.asarray(want, dtype=dt).tobytes(), (n, got, want)


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
    assert r.reduce(queue, a.base_data, n=0, dtype=np.int32) == 0  # nothing: the identity
    with pytest.raises(oclreduction.OcrError) as e:
        r.reduce(queue, a.base_data, n=11, dtype=np.int32)
    assert e.value.status == oclreduction.USAGE and "beyond the input buffer" in e.value.message
    with pytest.raises(TypeError):
        r.reduce(queue, cla.zeros(queue, 4, np.float32))
    assert r.reduce(queue, a) == 45
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_buffer_of_the_wrong_type_is_refused(queue):
    """A float32 reducer given an int32 Buffer: refused, never 6.3e-44."""
    ctx = queue.context
    a = cla.to_device(queue, np.arange(1, 11, dtype=np.int32))
    r = oclreduction.Reducer(ctx, np.float32, "sum")
    with pytest.raises(TypeError, match="no element type"):
        r.reduce(queue, a.base_data, n=10)
    with pytest.raises(TypeError, match="built for float32"):
        r.reduce(queue, a.base_data, n=10, dtype=np.int32)
    with pytest.raises(TypeError, match="built for float32"):
        r.reduce(queue, a)
    ri = oclreduction.Reducer(ctx, np.int32, "sum")
    assert ri.reduce(queue, a.base_data, n=10, dtype=np.int32) == 55
    with pytest.raises(TypeError, match="dtype=float32 given for an array of int32"):
        ri.reduce(queue, a, dtype=np.float32)


@pytest.mark.parametrize("options", [None, "-cl-std=CL1.2"])
def test_widening_reducer_at_every_offset(queue, options):
    """int32 read, int64 combined: the one-launch finish (POCL) and, with a
    language version given, the passes over int64 partials; every offset
    around the alignment, whose head the reducer converts on its own."""
    ctx = queue.context
    host = np.full(3000, 2**31 - 1, dtype=np.int32)
    host[::7] = -(2**31)
    a = cla.to_device(queue, host)
    r = oclreduction.Reducer(ctx, np.int32, "sum", acc_dtype=np.int64, build_options=options)
    align = queue.device.mem_base_addr_align // 8 // 4
    for off in (0, 1, align - 1, align, align + 1, 2 * align + 3):
        for n in (1, 2, align - off % align, align + 1, 2999 - off):
            if n < 1 or off + n > host.size:
                continue
            want = host[off:off + n].astype(np.int64).sum()
            assert r.reduce(queue, a, n=n, offset=off) == want, (off, n)
    out = cla.zeros(queue, 1, np.int64)
    r.reduce_async(queue, a, out).wait()
    assert out.get()[0] == host.astype(np.int64).sum()
    with pytest.raises(TypeError, match="must hold int64"):
        r.reduce_async(queue, a, cla.zeros(queue, 1, np.int32))


def test_values_gathered_at_result_offsets(queue):
    """result_offset (ocr_reducer_reduce_into): values of a widening reducer,
    each from another input offset (the head before the first 16-byte load
    read one at a time), gathered in one array, in a slice of it and in a
    Buffer; no other element written; overlap and range refused."""
    ctx = queue.context
    host = np.full(5000, 2**31 - 1, dtype=np.int32)
    host[::5] = -(2**31) + 3
    a = cla.to_device(queue, host)
    r = oclreduction.Reducer(ctx, np.int32, "sum", acc_dtype=np.int64, ignore_tuning=True)
    out = cla.to_device(queue, np.full(14, 7, dtype=np.int64))
    cases = [(0, 1), (1, 2), (2, 4999 - 2), (3, 4), (5, 77), (17, 4103)]
    for k, (off, n) in enumerate(cases):
        r.reduce_async(queue, a, out, n=n, offset=off, result_offset=2 * k + 1)
    r.reduce_async(queue, a, out[12:], n=9, offset=6, result_offset=1)  # out[13]
    got = out.get()
    for k, (off, n) in enumerate(cases):
        assert got[2 * k + 1] == host[off:off + n].astype(np.int64).sum(), (off, n)
    assert got[13] == host[6:15].astype(np.int64).sum()
    assert list(got[0:13:2]) == [7] * 7  # the even elements (and out[12]) untouched
    raw = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 3 * 8)
    r.reduce_async(queue, a, raw, n=10, offset=11, result_offset=2).wait()
    back = np.empty(3, np.int64)
    cl.enqueue_copy(queue, back, raw)
    assert back[2] == host[11:21].astype(np.int64).sum()
    with pytest.raises(oclreduction.OcrError, match="result buffer holds"):
        r.reduce_async(queue, a, raw, n=10, result_offset=3)
    with pytest.raises(ValueError, match="not one of its own"):
        r.reduce_async(queue, a, out[12:], n=10, result_offset=2)
    # The result element inside the elements reduced: refused, nothing enqueued.
    b = cla.to_device(queue, np.arange(100, dtype=np.int64))
    r64 = oclreduction.Reducer(ctx, np.int64, "sum")
    with pytest.raises(oclreduction.OcrError, match="overlaps"):
        r64.reduce_async(queue, b, b, n=50, offset=10, result_offset=40)
    r64.reduce_async(queue, b, b, n=50, offset=10, result_offset=60).wait()
    assert b.get()[60] == np.arange(10, 60).sum()
