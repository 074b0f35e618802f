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

__all__ = ["dot", "vdot", "subset_dot", "subset_min", "subset_max", "norm", "count_nonzero",
           "any", "all"]


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


# A subset's index check, folded into its reduction's one pass, two ways.
# Real float results ("nan"): an index outside [0, pyocr_len) maps to NaN,
# which every such reduction propagates; only a NaN result has the subset
# checked on the host (NaN data, or a bad index), and the library's own
# custom reducer runs the spec. Others ("flag"): a bad index sets *pyocr_bad
# (the atomic runs only for a bad index; read back after the call) and
# reads element 0; the package's kernels run it (the library's spec takes
# read-only arguments).
_LEN = ", const long pyocr_len"
_FLAG = ", __global int *pyocr_bad"
_IN = "(s[i] >= 0 && s[i] < pyocr_len)"


def _nan_checked(to: np.dtype) -> bool:
    return to in (np.float32, np.float64)


def _pick(x: str) -> str:
    """x[s[i]], its index checked the "flag" way."""
    return f"{x}[{_IN} ? s[i] : (atomic_or(pyocr_bad, 1), 0)]"


def _subset(spec: _Spec, check: str) -> _Spec:
    """spec made a subset's: only the subset covers the range."""
    spec.sized = [True] + [False] * (len(spec.args) - 1)  # type: ignore[attr-defined]
    spec.check = check  # type: ignore[attr-defined]
    if check == "flag":
        spec.native = None
    return spec


def _dot_spec(da: np.dtype, db: np.dtype, to: np.dtype, conj: bool, subset: Any) -> _Spec:
    nan = subset is not None and _nan_checked(to)

    def make() -> _Spec:
        at = "x[i]" if subset is None else "x[s[i]]" if nan else _pick("x")
        x, y = _as(da, to, at), _as(db, to, at.replace("x[", "y["))
        args = f"__global {_ctype(da)} *x, __global {_ctype(db)} *y"
        if subset is not None:
            args = f"__global {_ctype(subset)} *s, " + args + _LEN + ("" if nan else _FLAG)
        if to.kind == "c":
            root = _ctype(to)[:-2]
            if conj and da.kind == "c":
                x = f"{root}_conj({x})"
            return _Spec(to, f"{root}_new(0, 0)", f"{root}_add(a, b)", f"{root}_mul({x}, {y})",
                         args, "ocr_dot", None, "")
        expr = f"{x} * {y}"
        if nan:
            expr = f"{_IN} ? ({expr}) : ({_ctype(to)})NAN"
        return _Spec(to, "0", "a + b", expr, args, "ocr_dot", None, "")
    if subset is not None:
        return _spec(("dot", da, db, to, conj, subset),
                     lambda: _subset(make(), "nan" if nan else "flag"))
    return _spec(("dot", da, db, to, conj, subset), make)


class ViewError(ValueError, RuntimeError):
    """A view a function does not read: a ValueError (NumPy's kind of
    refusal) that is also the RuntimeError PyOpenCL raises there."""


def _contiguous(fn: str, *arrays: Any) -> None:
    """Raise ViewError for a view fn does not read (a strided or reversed
    one: sum, min and max read those)."""
    for a in arrays:
        if not a.flags.forc:
            raise ViewError(f"{fn} reads contiguous arrays; this one is a view with strides "
                             f"{a.strides} for shape {a.shape} (sum, min and max read such "
                             f"views): pass a contiguous copy")


def _same_length(fn: str, a: Any, b: Any) -> None:
    """NumPy's refusal of vectors of different lengths (read flat)."""
    if a.size != b.size:
        raise ValueError(f"{fn}: shapes {a.shape} and {b.shape} not aligned: {a.size} "
                         f"elements != {b.size}")


def _bad_indices(subset: Any, slc: Any, n: int) -> bool:
    """Whether subset[slc] (on the host) holds an index outside [0, n)."""
    idx = subset.get()
    if slc is not None:
        idx = idx[slc]
    return bool(idx.size) and bool((idx < 0).any() or (idx >= n).any())


def _run_subset(fn: str, spec: _Spec, subset: Any, arrays: Any, n: int, queue: Any,
                slice: Any) -> Any:
    """spec's reduction over subset (its indices checked against n: an
    IndexError, as NumPy's; PyOpenCL reads outside the buffer). The call
    waits for its result (the check's read)."""
    import pyopencl as cl
    import pyopencl.array as cla
    _contiguous(fn, subset, *arrays)
    if subset.dtype.kind not in "iu":
        raise TypeError(f"{fn}: subset holds integer indices, not {subset.dtype}")
    bad = f"{fn}: an index of subset is out of bounds for size {n} (negative indices are " \
        "refused too)"
    if spec.check == "nan":  # type: ignore[attr-defined]
        out = _run(spec, (subset, *arrays, np.int64(n)), queue, slice=slice)
        if np.isnan(out.get()[()]) and _bad_indices(subset, slice, n):
            raise IndexError(bad)
        return out
    q = queue if queue is not None else subset.queue
    # The flag made holding 0 (a copy at creation: half cla.zeros' cost, no fill).
    buf = cl.Buffer(q.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=np.zeros(1, np.int32))
    flag = cla.Array(q, (1,), np.int32, data=buf)
    out = _run(spec, (subset, *arrays, np.int64(n), flag), queue, slice=slice)
    if flag.get()[0]:
        raise IndexError(bad)
    return out


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
    _contiguous("dot", a, b)
    _same_length("dot", a, b)
    return _run(_dot_spec(a.dtype, b.dtype, to, False, None), (a, b), queue, slice=slice)


def vdot(a: Array, b: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
         slice: Optional[builtins.slice] = None) -> Array:
    """dot with the first argument's complex conjugate, as pyopencl.array.vdot
    and numpy.vdot (of contiguous arrays, read flat)."""
    to = _dot_type(a, b, dtype)
    _contiguous("vdot", a, b)
    _same_length("vdot", a, b)
    return _run(_dot_spec(a.dtype, b.dtype, to, True, None), (a, b), queue, slice=slice)


def subset_dot(subset: Array, a: Array, b: Array, dtype: Optional[DTypeLike] = None,
               queue: Optional[Queue] = None, slice: Optional[builtins.slice] = None) -> Array:
    """sum(a[j] * b[j] for j in subset) as a 0-d Array, as
    pyopencl.array.subset_dot (subset: an Array of integer indices; slice=
    selects from subset). An index outside either array (or negative):
    IndexError, checked in the same pass; the call waits for its result."""
    to = _dot_type(a, b, dtype)
    spec = _dot_spec(a.dtype, b.dtype, to, False, subset.dtype)
    n = builtins.min(a.size, b.size)
    return _run_subset("subset_dot", spec, subset, (a, b), n, queue, slice)


def _subset_minmax_spec(what: str, dt: np.dtype, st: np.dtype) -> _Spec:
    def make() -> _Spec:
        if dt.kind == "f":  # NaN wins (NumPy's min and max)
            neutral = "-INFINITY" if what == "max" else "INFINITY"
        elif dt.kind in "iu":
            neutral = _limit(dt, what == "max")
        else:
            raise TypeError(f"subset_{what} takes integer or real data, not {dt}")
        cmp = ">=" if what == "max" else "<="
        keep = f"(a {cmp} b || isnan(a)) ? a : b" if dt.kind == "f" else f"(a {cmp} b) ? a : b"
        nan = _nan_checked(dt)
        args = f"__global {_ctype(st)} *s, __global {_ctype(dt)} *x" + _LEN + (
            "" if nan else _FLAG)
        expr = f"{_IN} ? x[s[i]] : ({_ctype(dt)})NAN" if nan else _pick("x")
        return _subset(_Spec(dt, neutral, keep, expr, args, f"ocr_subset_{what}", None, ""),
                       "nan" if nan else "flag")
    return _spec(("subset", what, dt, st), make)


def _limit(dt: np.dtype, low: bool) -> str:
    """OpenCL C for the least (low) or largest value of integer type dt."""
    info = np.iinfo(dt)
    v = int(info.min if low else info.max)
    text = f"({v + 1}L - 1)" if v < 0 else f"{v}UL" if dt.kind == "u" else f"{v}L"
    return f"(({_ctype(dt)}){text})"


def _subset_minmax(what: str, subset: Any, a: Any, queue: Any, slice: Any) -> Any:
    if subset.size == 0 or slice is not None and not len(builtins.range(
            *slice.indices(subset.size))):
        raise ValueError(f"zero-size array to reduction operation "
                         f"{'maximum' if what == 'max' else 'minimum'} which has no identity")
    spec = _subset_minmax_spec(what, a.dtype, subset.dtype)
    return _run_subset(f"subset_{what}", spec, subset, (a,), a.size, queue, slice)


def subset_min(subset: Array, a: Array, queue: Optional[Queue] = None,
               slice: Optional[builtins.slice] = None) -> Array:
    """min(a[j] for j in subset) as a 0-d Array of a.dtype, as
    pyopencl.array.subset_min (NaN propagates, as numpy.min; an empty subset:
    ValueError, as NumPy; an index outside a: IndexError)."""
    return _subset_minmax("min", subset, a, queue, slice)


def subset_max(subset: Array, a: Array, queue: Optional[Queue] = None,
               slice: Optional[builtins.slice] = None) -> Array:
    """max(a[j] for j in subset): subset_min's counterpart."""
    return _subset_minmax("max", subset, a, queue, slice)


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
    _contiguous("norm", a)
    if ord == np.inf and a.size == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no identity")
    return _run(_norm_spec(a.dtype, ord), (a,), queue)


def count_nonzero(a: Array, queue: Optional[Queue] = None) -> Array:
    """The number of nonzero elements (NaN counts; a complex element counts
    if either part is nonzero) as a 0-d int64 Array (numpy.count_nonzero
    returns an int: .get()[()] gives it)."""
    _contiguous("count_nonzero", a)
    if a.dtype == np.bool_:  # read as its bytes (0 or 1)
        a = a.view(np.uint8)
    dt = a.dtype
    spec = _spec(("count", dt), lambda: _Spec(np.int64, "0", "a + b", f"(long)({_nz(dt)})",
                                              f"__global {_ctype(dt)} *x", "ocr_count", None,
                                              ""))
    return _run(spec, (a,), queue)


def _nz(dt: np.dtype) -> str:
    """OpenCL C: whether x[i] is nonzero (NaN is; complex: either part)."""
    return "(x[i].real != 0 || x[i].imag != 0)" if dt.kind == "c" else "x[i] != 0"


def _any_all(what: str, a: Any, queue: Any, wait_for: Any) -> Any:
    _contiguous(what, a)
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    dt = a.dtype
    red, neutral = ("a | b", "0") if what == "any" else ("a & b", "1")
    spec = _spec((what, dt), lambda: _Spec(np.int8, neutral, red, f"(char)({_nz(dt)})",
                                           f"__global {_ctype(dt)} *x", f"ocr_{what}", None,
                                           ""))
    return _run(spec, (a,), queue, wait_for=wait_for)


def any(a: Array, queue: Optional[Queue] = None, wait_for: Any = None) -> Array:
    """Whether an element is nonzero (NaN is), as pyopencl.array.any: a 0-d
    int8 Array holding 0 or 1 (numpy.any returns a bool; bool(r.get()) gives
    it); an empty a: 0."""
    return _any_all("any", a, queue, wait_for)


def all(a: Array, queue: Optional[Queue] = None, wait_for: Any = None) -> Array:
    """Whether every element is nonzero, as pyopencl.array.all (a 0-d int8
    Array, 0 or 1; an empty a: 1)."""
    return _any_all("all", a, queue, wait_for)
