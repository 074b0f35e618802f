"""segment_reduce's offsets are checked: non-decreasing, the first >= 0, the
last <= a.size, else ValueError; every NumPy integer dtype is taken. Before
the check [0, 5, 3, 10] gave [10, 0, 42] and [0, 5, 11] on 10 elements
[10, 35] without an error, and uint64 offsets raised a TypeError of
right_shift."""
import numpy as np
import pyopencl.array as cla
import pytest

import oclreduction as ocr

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("dtype", INTS)
def test_every_integer_dtype(queue, dtype):
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    for offs in ([0, 5, 10], [0, 0, 3, 10], [2, 7]):
        got = ocr.segment_reduce(a, np.array(offs, dtype=dtype)).get()
        want = [np.arange(10)[offs[j]:offs[j + 1]].sum() for j in range(len(offs) - 1)]
        assert got.tolist() == want, (dtype, offs, got)
    # on the device too
    got = ocr.segment_reduce(a, cla.to_device(queue, np.array([0, 4, 10], dtype=dtype))).get()
    assert got.tolist() == [6, 39]


@pytest.mark.parametrize("offs,why", [
    ([0, 5, 3, 10], "must not decrease"),
    ([0, 5, 11], "past the 10 elements"),
    ([-1, 5, 10], "negative"),
    ([0, 11], "past the 10 elements"),
    ([3, 2], "must not decrease"),
])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.uint32])
def test_bad_offsets_are_refused(queue, offs, why, dtype):
    if min(offs) < 0 and np.dtype(dtype).kind == "u":
        pytest.skip("no negative unsigned offsets")
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    for o in (np.array(offs, dtype=dtype), cla.to_device(queue, np.array(offs, dtype=dtype))):
        with pytest.raises(ValueError, match=why):
            ocr.segment_reduce(a, o)


def test_offsets_not_integers(queue):
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError):
        ocr.segment_reduce(a, np.array([0.0, 5.0, 10.0]))
