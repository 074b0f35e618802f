"""How a reduction of one dtype into another is done (oclreduction's
sum/min/max, value): which data the library reads, in which type it
combines, and how the value becomes the result's dtype."""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from ._native import OPS as _OPS, TYPES as _TYPES, lib as _lib, type_of
from ._native import accumulator as _accumulator, is_small as _is_small, widens_to

_I64, _U64 = np.dtype(np.int64), np.dtype(np.uint64)


class Plan:
    """How op over data of one dtype gives a result of another: the library
    reduces `read` data (after a conversion into `conv`, or None) in `acc`; a
    value of `acc` becomes `out` by a conversion on the device (`back`), by
    its bits (`bits`: int64 read as uint64), or as two parts (`parts`: a
    complex sum as the real and imaginary columns)."""
    __slots__ = ("read", "conv", "acc", "back", "bits", "parts", "out")

    def __init__(self, read: np.dtype, conv: Optional[np.dtype], acc: np.dtype,
                 back: Optional[np.dtype], out: np.dtype, bits: bool = False,
                 parts: bool = False) -> None:
        self.read, self.conv, self.acc, self.back, self.out = read, conv, acc, back, out
        self.bits, self.parts = bits, parts


_plans: Dict[tuple, Plan] = {}


def _default_out(op: str, dt: np.dtype) -> np.dtype:
    """The result's dtype without dtype=: a.dtype (PyOpenCL), but NumPy's for
    bool sums and products (int64) and the small types' (their accumulator)."""
    if op in ("sum", "prod"):
        if dt.kind == "b":
            return _I64
        if dt.kind != "c" and _is_small(dt):
            return _accumulator(dt)
    return dt


def _make_plan(op: str, dt: np.dtype, dtype: Any, accurate: bool) -> Plan:
    out = np.dtype(dtype) if dtype is not None else _default_out(op, dt)
    read = np.dtype(np.int8) if dt.kind == "b" else dt  # a bool is its byte, 0 or 1
    if dt.kind == "c" or out.kind == "c":
        if op != "sum" or accurate or out.kind != "c":
            raise TypeError(f"oclreduction reduces {dt} data into {out} only as a plain sum "
                            "into a complex dtype")
        part = np.dtype(np.float32 if out == np.complex64 else np.float64)
        return Plan(part, out if out != dt else None, part, None, out, parts=True)
    if out.kind == "b" and op in ("sum", "prod"):
        raise TypeError(f"{op} of {dt} data into bool: pass an integer dtype")
    real = np.dtype(np.int8) if out.kind == "b" else out
    type_of(real)  # a TypeError for dtypes the library does not reduce
    if not _lib.ocr_op_valid_for(_OPS[op], type_of(real)):
        raise TypeError(f"{op} needs integers, not {out}")
    acc, back = (_accumulator(real), real) if _is_small(real) else (real, None)
    if widens_to(read, acc):
        return Plan(read, None, acc, back, out)
    if read.kind in "iu" and acc.kind in "iu" and op not in ("min", "max"):
        # Integers wrap: combined in 64 bits and narrowed (or read as the
        # other signedness) they give NumPy's value modulo 2^k.
        wide = read if read.itemsize == 8 else _I64 if widens_to(read, _I64) else _U64
        return Plan(read, None, wide, real if real.itemsize < 8 else None, out,
                     bits=real.itemsize == 8)
    if op in ("min", "max"):
        raise TypeError(f"{dt} data cannot be combined in {out}: dtype may be "
                        + ", ".join(str(t) for t in _TYPES if widens_to(read, t)))
    # Each element converted on the device, then reduced in `real`.
    return Plan(real, real, acc, back, out)


def plan(op: str, dt: np.dtype, dtype: Any, accurate: bool) -> Plan:
    key = (op, dt, dtype, accurate)
    try:
        return _plans[key]
    except (KeyError, TypeError):  # TypeError: an unhashable dtype argument
        pass
    p = _make_plan(op, dt, dtype, accurate)
    if accurate and (p.acc.kind != "f" or _is_small(p.read) or p.parts):
        raise TypeError(f"accurate=True is for float32/float64 sums, not {dt} into {p.out}")
    try:
        _plans[key] = p
    except TypeError:
        pass
    return p
