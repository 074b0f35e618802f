"""ReductionKernel, dot, vdot, subset_dot, norm and count_nonzero against NumPy:
every dtype they take, sizes 0 to 1000003 (many first-pass groups, so the
second stage matters), NaN, offsets, and events on an out-of-order queue."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr
from oclreduction import _custom
from conftest import patch_kernel

SIZES = [0, 1, 2, 3, 1000003]
TYPES = [np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128]


def values(dtype, n, seed):
    """Small values (exact integer dot products; floats checked against a
    float64 reference)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    x = rng.integers(-7, 8, n).astype(dt) if dt.kind == "i" else rng.standard_normal(n)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(n)
    return np.asarray(x).astype(dt)


def close(got, want, dtype, n):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        assert got == want
    else:  # float32: about sqrt(n) roundings of eps each
        tol = (1e-4 if dt in (np.float32, np.complex64) else 1e-11) * max(1, n) ** 0.5
        assert abs(got - want) <= tol * max(1.0, np.sqrt(n)), (got, want)


def skip_fp64(queue, *dts):
    if queue.device.double_fp_config == 0 and any(
            np.dtype(d) in (np.float64, np.complex128) for d in dts):
        pytest.skip("no fp64 on this device")


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("n", SIZES)
def test_dot_vdot(queue, dtype, n):
    skip_fp64(queue, dtype)
    x, y = values(dtype, n, 1), values(dtype, n, 2)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    got = ocr.dot(a, b)
    assert got.shape == () and got.dtype == np.dtype(dtype)
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    ref = (lambda f: f(x.astype(wide), y.astype(wide))) if x.dtype.kind != "i" else \
        (lambda f: f(x, y))
    close(got.get()[()], ref(np.dot), dtype, n)
    close(ocr.vdot(a, b).get()[()], ref(np.vdot), dtype, n)


@pytest.mark.parametrize("da,db", [(np.int32, np.float32), (np.float32, np.complex64),
                                   (np.int64, np.float64), (np.complex64, np.complex128)])
def test_dot_mixed_types_and_dtype(queue, da, db):
    skip_fp64(queue, da, db)
    n = 1001
    x, y = values(da, n, 3), values(db, n, 4)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    got = ocr.dot(a, b)
    assert got.dtype == np.result_type(da, db)
    close(got.get()[()], np.dot(x.astype(np.complex128), y.astype(np.complex128)), got.dtype, n)
    if np.dtype(da).kind == "c" and np.dtype(db).kind != "c":
        with pytest.raises(TypeError):
            ocr.dot(a, b, dtype=np.float32)


def test_dot_offsets_and_slice(queue):
    x, y = values(np.int64, 1003, 5), values(np.int64, 1003, 6)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    assert ocr.dot(a[3:], b[3:]).get()[()] == np.dot(x[3:], y[3:])
    assert ocr.dot(a, b, slice=slice(5, 900, 3)).get()[()] == np.dot(x[5:900:3], y[5:900:3])
    assert ocr.vdot(a[7:], b[:-7]).get()[()] == np.dot(x[7:], y[:-7])


def test_subset_dot(queue):
    x, y = values(np.float64, 5000, 7), values(np.float64, 5000, 8)
    idx = np.random.default_rng(9).integers(0, 5000, 3000).astype(np.int32)
    a, b, s = (cla.to_device(queue, v) for v in (x, y, idx))
    close(ocr.subset_dot(s, a, b).get()[()], np.dot(x[idx], y[idx]), np.float64, 3000)
    close(ocr.subset_dot(s, a, b, slice=slice(10, 20)).get()[()],
          np.dot(x[idx[10:20]], y[idx[10:20]]), np.float64, 10)


def test_dot_nan(queue):
    x = values(np.float32, 100000, 10)
    x[77777] = np.nan
    a = cla.to_device(queue, x)
    assert np.isnan(ocr.dot(a, a).get()[()])
    assert np.isnan(ocr.norm(a).get()[()]) and np.isnan(ocr.norm(a, 1).get()[()])
    assert np.isnan(ocr.norm(a, np.inf).get()[()])
    assert ocr.count_nonzero(a).get()[()] == np.count_nonzero(x)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("n", SIZES)
def test_norm(queue, dtype, n):
    skip_fp64(queue, dtype, np.float64)
    x = values(dtype, n, 11)
    a = cla.to_device(queue, x)
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    wide = x.astype(np.complex128)
    for o in (None, 1, 2, np.inf):
        if o == np.inf and n == 0:
            with pytest.raises(ValueError):
                ocr.norm(a, np.inf)
            continue
        got = ocr.norm(a, o)
        assert got.dtype == real
        close(got.get()[()], np.linalg.norm(wide, o), real, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_norm_no_overflow_or_underflow(queue, dtype):
    skip_fp64(queue, dtype)
    big = np.finfo(dtype).max / 1e4  # the norm fits; its squares do not
    for scale in (big, np.finfo(dtype).tiny * 4):
        x = (np.array([3.0, 4.0] * 50001) * scale).astype(dtype)
        got = ocr.norm(cla.to_device(queue, x)).get()[()]
        want = 5.0 * np.sqrt(50001) * float(scale)
        assert np.isfinite(got) and abs(got - want) <= 1e-4 * want, (got, want)
    x = np.array([1.0, np.inf, 2.0], dtype)
    assert ocr.norm(cla.to_device(queue, x)).get()[()] == np.inf


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.float32, np.complex64])
@pytest.mark.parametrize("n", SIZES)
def test_count_nonzero(queue, dtype, n):
    x = values(np.int32, n, 12).astype(dtype)
    if np.dtype(dtype).kind == "c" and n:
        x[0] = 1j  # nonzero by its imaginary part alone
    got = ocr.count_nonzero(cla.to_device(queue, x))
    assert got.dtype == np.int64 and got.get()[()] == np.count_nonzero(x)


def test_kernel_every_index_once(queue):
    """sum(i) and max(i) over many first-pass groups: a skipped or partial
    second stage, or a grid-stride loop that misses or repeats an index,
    gives another value."""
    n = 1000003
    a = cla.zeros(queue, n, np.int8)
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "i + (long)x[i]",
                            "__global char *x")
    assert k(a).get()[()] == n * (n - 1) // 2
    m = ocr.ReductionKernel(queue.context, np.int64, "-1", "max(a, b)", "i", "__global char *x")
    assert m(a).get()[()] == n - 1
    assert m(a, range=slice(5, 200, 7)).get()[()] == 194
    assert k(a, slice=slice(10, None)).get()[()] == sum(range(10, n))


def test_kernel_pyopencl_call(queue):
    """PyOpenCL's call: scalars, out= (with an offset), return_event, range=,
    an empty input's neutral."""
    x, y = values(np.float32, 10007, 13), values(np.float32, 10007, 14)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    k = ocr.ReductionKernel(queue.context, np.float32, "0", "a+b", "s*x[i]*y[i]",
                            "float s, __global const float *x, __global const float *y")
    close(k(2.5, a, b).get()[()], 2.5 * np.dot(x.astype(np.float64), y), np.float32, 10007)
    out = cla.zeros(queue, 4, np.float32)
    res, ev = k(1.0, a[1:], b[1:], out=out[2:3], return_event=True)
    assert isinstance(ev, cl.Event) and res is not None
    got = out.get()
    assert got[0] == got[1] == got[3] == 0
    close(got[2], np.dot(x[1:].astype(np.float64), y[1:]), np.float32, 10006)
    e = cla.empty(queue, (0,), np.float32)
    assert ocr.ReductionKernel(queue.context, np.float32, "-1.5f", "fmax(a, b)", "x[i]",
                               "__global float *x")(e).get()[()] == -1.5
    with pytest.raises(cl.RuntimeError):  # a bad expression fails at construction
        ocr.ReductionKernel(queue.context, np.float32, "0", "a+b", "x[i] +* nope",
                            "__global float *x")


def test_kernel_complex_default_map(queue):
    x = values(np.complex64, 3001, 15)
    k = ocr.ReductionKernel(queue.context, np.complex64, "cfloat_new(0, 0)",
                            "cfloat_add(a, b)", arguments="__global cfloat_t *in")
    close(k(cla.to_device(queue, x)).get()[()], x.astype(np.complex128).sum(), np.complex64,
          3001)


def test_out_of_order_queue_waits(ooo_queue):
    """A pending UserEvent on the input (a copy behind it): the reduction
    waits for it, and the input's events then name the reduction's alone."""
    ctx = ooo_queue.context
    n = 100003
    a = cla.zeros(ooo_queue, n, np.float32)
    a.finish()
    gate = cl.UserEvent(ctx)
    a.add_event(cl.enqueue_copy(ooo_queue, a.base_data, np.full(n, 2, np.float32),
                                wait_for=[gate], is_blocking=False))
    try:
        got = ocr.dot(a, a)
        cnt = ocr.count_nonzero(a)
        last = cnt.events[-1]  # before get() adds its read
        assert got.events[-1].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert got.get()[()] == 4 * n and cnt.get()[()] == n
    mine = [e for e in a.events if not isinstance(e, cl.NannyEvent)]  # the copy's stays
    assert [e.int_ptr for e in mine] == [last.int_ptr]


def _var_spec_calls(monkeypatch):
    """Records each first pass of the package's kernels over several groups
    (ocr_rk_first into partials, or ocr_rk_first_finish): (the partials
    buffer, the events it waited for, the event it returned)."""
    seen = []
    real = _custom._launch

    def launch(queue, kernel, groups, wg, args, waits):
        ev = real(queue, kernel, groups, wg, args, waits)
        name = kernel.function_name
        if groups > 1 and name in ("ocr_rk_first", "ocr_rk_first_finish"):
            seen.append((args[1] if name == "ocr_rk_first" else args[4], list(waits or []), ev))
        return ev
    monkeypatch.setattr(_custom, "_launch", launch)
    return seen


def _done_soon(ev, seconds=20.0):
    """Whether ev completes within seconds (a test that would otherwise hang
    fails instead)."""
    import time
    end = time.monotonic() + seconds
    while ev.command_execution_status > 0:
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return ev.command_execution_status == 0


# One kernel for the runtime probes below: each work-item adds one to its int.
_BUMP = "__kernel void k(__global int *x) { x[get_global_id(0)] += 1; }"


def _runs_past_a_gate(q, seconds=5.0):
    """PyOpenCL alone: whether a kernel enqueued on the out-of-order queue q
    after one held by a user event completes while that one is held."""
    ctx = q.context
    prg = cl.Program(ctx, _BUMP).build()
    k1, k2 = cl.Kernel(prg, "k"), cl.Kernel(prg, "k")
    # kept until the end (POCL 3.1 aborts when a held kernel's buffer is freed)
    bufs = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256) for _ in range(2)]
    k1.set_args(bufs[0])
    k2.set_args(bufs[1])
    gate = cl.UserEvent(ctx)
    try:
        cl.enqueue_nd_range_kernel(q, k1, (64,), None, wait_for=[gate])
        return _done_soon(cl.enqueue_nd_range_kernel(q, k2, (64,), None), seconds)
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
        q.finish()


def _data(k, n=300001):
    h = np.full(n, float(k), np.float32)
    h[k] = -1000.0
    return h


def _right(got, h):
    return abs(float(got.get()) - np.var(h.astype(np.float64))) <= 1e-4 * np.var(h)


def test_partials_kept_on_an_in_order_queue(queue, monkeypatch):
    """Two passes (more than one group), calls back to back on an in-order
    queue: one partials buffer, the queue's own, on every call, and no wait
    added to a first pass (the queue orders the calls); every answer right."""
    seen = _var_spec_calls(monkeypatch)
    monkeypatch.setattr(_custom, "_specs", {})
    hs = [_data(k) for k in range(12)]
    xs = [cla.to_device(queue, h) for h in hs]
    queue.finish()
    got = [ocr.var(x) for x in xs]
    ends = {g.events[-1].int_ptr for g in got} | {e.int_ptr for _b, _w, e in seen}
    assert all(_right(g, h) for g, h in zip(got, hs))
    assert len(seen) == 12 and len({id(s[0]) for s in seen}) == 1
    assert not any(e.int_ptr in ends for _b, w, _e in seen for e in w)


def test_partials_on_an_out_of_order_queue_add_no_wait(context, monkeypatch):
    """On an out-of-order queue a call whose predecessor is still pending
    (held by a user event) makes its own partials and does not wait for it;
    once the predecessor ends, the kept buffer is taken again."""
    props = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    if not context.devices[0].queue_properties & props:
        pytest.skip("the device has no out-of-order queues")
    q = cl.CommandQueue(context, properties=props)
    if not _runs_past_a_gate(q):
        pytest.skip("this runtime runs an out-of-order queue in order: a command behind one "
                    "held by a user event waits whoever enqueues it (NVIDIA's OpenCL)")
    seen = _var_spec_calls(monkeypatch)
    monkeypatch.setattr(_custom, "_specs", {})
    hs = [_data(k) for k in range(3)]
    xs = [cla.to_device(q, h) for h in hs]
    q.finish()
    gate = cl.UserEvent(context)
    try:
        a = ocr.var(xs[0], wait_for=[gate])
        b = ocr.var(xs[1])
        assert _done_soon(b.events[-1]), "a call waited for an unrelated pending one"
    finally:  # (POCL's blocking reads finish the whole queue: read after this)
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert _right(b, hs[1]) and _right(a, hs[0])
    c = ocr.var(xs[2])
    assert _right(c, hs[2])
    assert seen[1][0] is not seen[0][0] and seen[2][0] is seen[0][0]
    assert seen[0][2].int_ptr not in [e.int_ptr for e in seen[1][1]]


# PyOpenCL alone: a kernel that waits for a user event set to an error, then
# another kernel on the same queue (argv[1]: the queue's properties; argv[2]:
# the kernel, _BUMP). Intel's
# CPU runtime 2026.2.0 dies on the second enqueue with an out-of-order queue
# (and reports the first kernel COMPLETE).
_AFTER_A_FAILED_WAIT = """
import sys
import pyopencl as cl
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx, properties=int(sys.argv[1]))
k = cl.Program(ctx, sys.argv[2]).build().k
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1024)
k.set_args(buf)
gate = cl.UserEvent(ctx)
cl.enqueue_nd_range_kernel(q, k, (64,), None, wait_for=[gate])
gate.set_status(-5)
cl.enqueue_nd_range_kernel(q, k, (64,), None).wait()
q.finish()
"""


def _runtime_survives_a_failed_wait(props):
    """Whether the OpenCL runtime itself (PyOpenCL alone, in a child
    process) enqueues a kernel after one whose wait list failed."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", _AFTER_A_FAILED_WAIT, str(int(props)), _BUMP],
                       capture_output=True, timeout=120)
    return p.returncode == 0


@pytest.mark.parametrize("ooo", [False, True])
def test_a_failed_call_holds_up_no_other(context, monkeypatch, ooo):
    """A call whose wait list fails (a user event set to an error) leaves
    the kept partials usable: the next calls on that queue complete, right.
    Skipped where the runtime cannot enqueue after a failed wait at all."""
    props = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE if ooo else 0
    if ooo and not context.devices[0].queue_properties & props:
        pytest.skip("the device has no out-of-order queues")
    if not _runtime_survives_a_failed_wait(props):
        pytest.skip(f"{context.devices[0].platform.name}: the runtime itself dies enqueueing a "
                    "kernel after one whose wait list failed (PyOpenCL alone, queue properties "
                    f"{int(props)})")
    q = cl.CommandQueue(context, properties=props)
    monkeypatch.setattr(_custom, "_specs", {})
    hs = [_data(k) for k in range(3)]
    xs = [cla.to_device(q, h) for h in hs]
    q.finish()
    gate = cl.UserEvent(context)
    ocr.var(xs[0], wait_for=[gate])
    gate.set_status(-5)
    for x, h in zip(xs[1:], hs[1:]):
        b = ocr.var(x)
        assert _done_soon(b.events[-1]), "a call waited for a failed one"
        assert _right(b, h)


def test_partials_per_queue_and_past_the_cap(context, monkeypatch):
    """Each queue has its own kept partials (calls on two queues do not wait
    for each other); past _QUEUES queues a new queue takes the place of one
    with nothing pending (a queue gone, most often), else allocates per
    call; an allocator= given is used instead, as PyOpenCL's."""
    seen = _var_spec_calls(monkeypatch)
    monkeypatch.setattr(_custom, "_QUEUES", 2)
    ocr.clear_cache()
    qs = [cl.CommandQueue(context) for _ in range(3)]
    h = np.arange(100003, dtype=np.float32)
    want = np.var(h.astype(np.float64))
    gates = [cl.UserEvent(context) for _ in range(2)]
    try:  # queues 0 and 1 busy: queue 2 allocates per call
        held = [ocr.var(cla.to_device(q, h), wait_for=[g]) for q, g in zip(qs, gates)]
        for _ in range(2):
            assert abs(float(ocr.var(cla.to_device(qs[2], h)).get()) - want) <= 1e-5 * want
    finally:
        for g in gates:
            g.set_status(cl.command_execution_status.COMPLETE)
    assert all(abs(float(r.get()) - want) <= 1e-5 * want for r in held)
    bufs = [s_[0] for s_ in seen]
    assert bufs[0] is not bufs[1] and bufs[2] is not bufs[3]
    assert seen[0][2].int_ptr not in [e.int_ptr for e in seen[1][1]]  # no wait across queues
    for _ in range(3):  # queues made, used and dropped: their entries give way
        q = cl.CommandQueue(context)
        assert abs(float(ocr.var(cla.to_device(q, h)).get()) - want) <= 1e-5 * want
        del q
    q = cl.CommandQueue(context)
    for _ in range(2):
        assert abs(float(ocr.var(cla.to_device(q, h)).get()) - want) <= 1e-5 * want
    assert seen[-1][0] is seen[-2][0]
    made = []

    def allocator(nbytes):
        made.append(nbytes)
        return cl.Buffer(context, cl.mem_flags.READ_WRITE, nbytes)
    a = cla.to_device(qs[0], h, allocator=allocator)
    assert abs(float(ocr.var(a).get()) - want) <= 1e-5 * want
    assert len(made) >= 2  # the result and the partials


@pytest.mark.parametrize("mutant", [False, True])
def test_second_pass_over_many_partials(queue, monkeypatch, mutant):
    """More partials than the second pass's group has work-items (more
    groups than the one-launch finish takes: cl/custom.cl's ocr_rk_final,
    each work-item walking several): exact integer sums and var right, and
    a mutant of that walk (every other partial skipped) caught. A CPU
    device has too few groups for it unless told to launch more."""
    monkeypatch.setattr(_custom, "_GROUPS_PER_CU", 4096 // queue.device.max_compute_units + 1)
    monkeypatch.setattr(_custom, "_specs", {})
    if mutant:
        wrong = ("ocr_rk_j < ocr_rk_m; ocr_rk_j += OCR_RK_LOCAL_SIZE",
                 "ocr_rk_j < ocr_rk_m; ocr_rk_j += 2 * OCR_RK_LOCAL_SIZE")
        patch_kernel(monkeypatch, "custom.cl", *wrong)
    n = 2_000_003
    h = np.arange(n, dtype=np.int64) % 1000 - 400
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "ONE(x[i])",
                            "__global long *x", preamble="#define ONE(v) (v)")
    got = int(k(cla.to_device(queue, h)).get())
    hf = (h / 7).astype(np.float64)
    var = float(ocr.var(cla.to_device(queue, hf)).get())
    right = got == int(h.sum()) and abs(var - np.var(hf)) <= 1e-12 * np.var(hf)
    assert right != mutant, (got, int(h.sum()), var, np.var(hf))
