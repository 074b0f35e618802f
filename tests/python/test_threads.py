"""Module-level calls from many threads at once: each result right, no crash
(the issue's segfaults: one cached reducer shared by threads without a lock,
while ctypes lets them run together)."""
import threading

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction


def run_threads(target, count):
    errors = []

    def guarded(i):
        try:
            target(i)
        except BaseException as e:  # reported by the main thread
            errors.append((i, repr(e)))

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_four_threads_300_calls_each_own_queue(context):
    """4 threads x 300 calls, one queue each, one shared cached reducer."""
    wrong = []

    def work(i):
        q = cl.CommandQueue(context)
        hosts = [np.arange(i * 1000 + k, i * 1000 + k + 40000, dtype=np.int32) for k in range(3)]
        arrays = [cla.to_device(q, h) for h in hosts]
        for call in range(300):
            k = call % 3
            got = oclreduction.sum(arrays[k], dtype=np.int64).get()[()]
            if got != hosts[k].astype(np.int64).sum():
                wrong.append((i, call, got))

    run_threads(work, 4)
    assert not wrong, wrong[:5]


def test_threads_build_different_reducers_at_once(context):
    """Each thread its own operator and type, first calls together: the
    builds overlap, and each thread's answers stay its own."""
    cases = [("sum", np.float32), ("max", np.int64), ("min", np.uint32), ("bitwise_xor", np.int32)]
    barrier = threading.Barrier(len(cases))
    wrong = []

    def work(i):
        op, dt = cases[i]
        q = cl.CommandQueue(context)
        host = (np.arange(5000) % 97 + i).astype(dt)
        a = cla.to_device(q, host)
        uf = {"sum": np.add, "max": np.maximum, "min": np.minimum, "bitwise_xor": np.bitwise_xor}
        want = uf[op].reduce(host)
        barrier.wait()
        for call in range(50):
            got = getattr(oclreduction, op)(a[call:]).get()[()]
            if got != uf[op].reduce(host[call:]):
                wrong.append((op, call, got, want))

    run_threads(work, len(cases))
    assert not wrong, wrong[:5]


def test_one_reducer_object_shared_by_threads(context):
    r = oclreduction.Reducer(context, np.int32, "sum")
    wrong = []

    def work(i):
        q = cl.CommandQueue(context)
        host = np.full(10007, i + 1, dtype=np.int32)
        a = cla.to_device(q, host)
        for _ in range(100):
            if r.reduce(q, a) != 10007 * (i + 1):
                wrong.append(i)

    run_threads(work, 4)
    assert not wrong


def test_four_threads_argmax_axis_and_segments_at_once(context):
    """4 threads x 60 calls on one shared cached reducer each of argmax,
    argmin, sum(axis=) and segment_reduce (long segments too), all right."""
    rng = np.random.default_rng(27)
    host = rng.integers(-1000, 1000, 60003).astype(np.float32)
    mat = host[:60000].reshape(300, 200)
    offsets = np.array([0, 7, 7, 30000, 60003])
    want_seg = np.array([host[a:b].sum() for a, b in zip(offsets[:-1], offsets[1:])])
    wrong = []

    def work(i):
        q = cl.CommandQueue(context)
        a, m = cla.to_device(q, host), cla.to_device(q, mat)
        for call in range(60):
            kind = (call + i) % 4
            if kind == 0:
                ok = oclreduction.argmax(a).get()[()] == np.argmax(host)
            elif kind == 1:
                ok = oclreduction.argmin(a).get()[()] == np.argmin(host)
            elif kind == 2:
                ok = np.array_equal(oclreduction.sum(m, axis=call % 2).get(),
                                    mat.sum(axis=call % 2))
            else:
                ok = np.array_equal(oclreduction.segment_reduce(a, offsets).get(), want_seg)
            if not ok:
                wrong.append((i, call, kind))

    run_threads(work, 4)
    assert not wrong, wrong[:5]
