"""dot, vdot, subset_dot, norm and count_nonzero: PyOpenCL's functions as
specs of _custom's ReductionKernel machinery (one library call where the
library takes the spec; the package's own kernels otherwise), each spec
made once per dtype and kept in _custom's spec cache."""
from __future__ import annotations

import builtins
from typing import Any, Optional, Union

import numpy as np
from numpy.typing import DTypeLike

from . import _kernels
from ._custom import _ctype, _run, _spec, _Spec
from ._typing import Array, Queue

__all__ = ["dot", "vdot", "subset_dot", "norm", "count_nonzero"]


def _as(src: np.dtype, to: np.dtype, x: str) -> str:
    """OpenCL C for element x of src converted to `to` (NumPy's conversion)."""
    if to.kind != "c":
        if src.kind == "c":
            raise TypeError(f"{src} data cannot be combined in {to} (it would drop the "
                            "imaginary parts)")
        return f"(({_ctype(to)}){x})"
    root = _ctype(to)[:-2]  # cfloat, cdouble
    if src.kind == "c":
        return x if src == to else f"{root}_cast({x})"
    return f"{root}_fromreal(({'float' if to == np.complex64 else 'double'}){x})"


def _dot_spec(da: np.dtype, db: np.dtype, to: np.dtype, conj: bool, subset: Any) -> _Spec:
    def make() -> _Spec:
        at = "x[s[i]]" if subset is not None else "x[i]"
        x, y = _as(da, to, at), _as(db, to, at.replace("x", "y"))
        args = f"__global {_ctype(da)} *x, __global {_ctype(db)} *y"
        if subset is not None:
            args = f"__global {_ctype(subset)} *s, " + args
        if to.kind == "c":
            root = _ctype(to)[:-2]
            if conj and da.kind == "c":
                x = f"{root}_conj({x})"
            return _Spec(to, f"{root}_new(0, 0)", f"{root}_add(a, b)", f"{root}_mul({x}, {y})",
                         args, "ocr_dot", None, "")
        return _Spec(to, "0", "a + b", f"{x} * {y}", args, "ocr_dot", None, "")
    return _spec(("dot", da, db, to, conj, subset), make)


def _dot_type(a: Any, b: Any, dtype: Any) -> np.dtype:
    if dtype is not None:
        return np.dtype(dtype)
    return np.result_type(a.dtype, b.dtype)


def dot(a: Array, b: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
        slice: Optional[builtins.slice] = None) -> Array:
    """sum(a[i] * b[i]) as a 0-d Array, as pyopencl.array.dot (no conjugate):
    each element converted to dtype (default: NumPy's result type of the
    two) and multiplied and added in it; integer sums wrap. slice= reduces
    a[slice] . b[slice]. Waits for both Arrays' events; its event goes to
    the result's and to theirs."""
    to = _dot_type(a, b, dtype)
    return _run(_dot_spec(a.dtype, b.dtype, to, False, None), (a, b), queue, slice=slice)


def vdot(a: Array, b: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
         slice: Optional[builtins.slice] = None) -> Array:
    """dot with the first argument's complex conjugate, as pyopencl.array.vdot
    and numpy.vdot (of contiguous arrays, read flat)."""
    to = _dot_type(a, b, dtype)
    return _run(_dot_spec(a.dtype, b.dtype, to, True, None), (a, b), queue, slice=slice)


def subset_dot(subset: Array, a: Array, b: Array, dtype: Optional[DTypeLike] = None,
               queue: Optional[Queue] = None, slice: Optional[builtins.slice] = None) -> Array:
    """sum(a[j] * b[j] for j in subset) as a 0-d Array, as
    pyopencl.array.subset_dot (subset: an Array of integer indices; slice=
    selects from subset)."""
    to = _dot_type(a, b, dtype)
    spec = _dot_spec(a.dtype, b.dtype, to, False, subset.dtype)
    return _run(spec, (subset, a, b), queue, slice=slice)


def _real_of(dt: np.dtype) -> np.dtype:
    """The type |x| is computed in: NumPy's norm type (float32 for float32 and
    complex64; float64 for the rest, integers too)."""
    return np.dtype(np.float32) if dt in (np.float32, np.complex64) else np.dtype(np.float64)


def _norm_spec(dt: np.dtype, ord_: Any) -> _Spec:
    def make() -> _Spec:
        r = _real_of(dt)
        rc = _ctype(r)
        ab = "hypot(x[i].real, x[i].imag)" if dt.kind == "c" else f"fabs(({rc})x[i])"
        args = f"__global {_ctype(dt)} *x"
        if ord_ == 1:
            return _Spec(r, "0", "a + b", ab, args, "ocr_norm1", None, "")
        if ord_ == np.inf:
            return _Spec(r, "0", "(a >= b || isnan(a)) ? a : b", ab, args, "ocr_norminf",
                         None, "")
        # L2 without overflow or underflow (cl/nrm2.cl: pairs (s, q) merged
        # to the larger scale s, LAPACK's nrm2 scaling).
        pre = f"#define R {rc}\n#define R2 {rc}2\n" + _kernels.source("nrm2.cl")
        return _Spec(_pair(r), "(R2)(0, 0)",
                     "ocr_nrm2_merge(a, b)", f"(R2)({ab}, 1)", args, "ocr_norm2", None, pre,
                     res=r, finish="r.x * sqrt(r.y)")
    return _spec(("norm", dt, ord_), make)


def _pair(r: np.dtype) -> np.dtype:
    """float2 or double2 as PyOpenCL registers it (its C name)."""
    import pyopencl.cltypes as clt
    return np.dtype(clt.float2 if r == np.float32 else clt.double2)


def norm(a: Array, ord: Union[None, int, float] = None, queue: Optional[Queue] = None) -> Array:
    """The vector norm of a's elements as a 0-d Array of the real type
    (float32 for float32 and complex64 data, float64 otherwise), as
    numpy.linalg.norm of a vector: ord=None or 2, sqrt(sum |x|^2) without
    overflow or underflow (scaled by the largest |x|; of an N-d array, the
    flattened one: NumPy's Frobenius norm); ord=1, sum |x|; ord=inf, max |x|
    (an empty a: ValueError, as NumPy). NaN propagates. ord 1, 2 and inf
    take 1-D arrays."""
    if ord is None:
        ord = 2
    elif a.ndim != 1:
        raise ValueError("ord= is for 1-D arrays (None: the flattened L2 norm)")
    if ord not in (1, 2, np.inf):
        raise ValueError(f"ord={ord!r}: 1, 2 or inf")
    if ord == np.inf and a.size == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no identity")
    return _run(_norm_spec(a.dtype, ord), (a,), queue)


def count_nonzero(a: Array, queue: Optional[Queue] = None) -> Array:
    """The number of nonzero elements (NaN counts; a complex element counts
    if either part is nonzero) as a 0-d int64 Array (numpy.count_nonzero
    returns an int: .get()[()] gives it)."""
    if a.dtype == np.bool_:  # read as its bytes (0 or 1)
        a = a.view(np.uint8)
    dt = a.dtype
    nz = "(x[i].real != 0 || x[i].imag != 0)" if dt.kind == "c" else "x[i] != 0"
    spec = _spec(("count", dt), lambda: _Spec(np.int64, "0", "a + b", f"(long)({nz})",
                                              f"__global {_ctype(dt)} *x", "ocr_count", None,
                                              ""))
    return _run(spec, (a,), queue)
