"""Fused statistics: stats, mean, var and std in one read of the data, built
on _custom's kernel template (one home for the walk and the tree) with
cl/stats.cl as its preamble (the merge, the element's triple, the walks).

Each element x becomes the triple (count 1, mean x, M2 0) and the triples
merge with Chan's parallel formula (Welford's update where one side is a
single element): no sum of squares, so no cancellation when the mean is
large against the spread. min/max and their first indices ride along on
request (minmax=True).
"""
from __future__ import annotations

import builtins
import dataclasses
import warnings
from typing import Any, List, NamedTuple, Optional, Tuple

import numpy as np
from numpy.typing import DTypeLike

from . import _kernels, _nd
from ._custom import _ctype, _run, _spec, _Spec
from ._typing import Array, Axis, Events, Queue

__all__ = ["Stats", "stats", "mean", "var", "std"]

# The lanes of each type's vector (float2, double4: measured best on an
# H200, where float4 and double2 were slower): cl/stats.cl's vector walk.
_VEC_LANES = {np.dtype(np.float32): 2, np.dtype(np.float64): 4}

_F16: np.dtype = np.dtype(np.float16)
_F32: np.dtype = np.dtype(np.float32)
_F64: np.dtype = np.dtype(np.float64)
_KNOWN = (_F16, _F32, _F64, np.dtype(np.complex64), np.dtype(np.complex128))


@dataclasses.dataclass(frozen=True)
class Stats:
    """stats()'s answer, on the host: count (an int); mean, var and std as
    NumPy scalars of np.mean's and np.var's dtypes; with minmax=True, min and
    max (of a.dtype) and argmin and argmax (ints, indices into the flattened
    array, NumPy's rules), else None."""
    count: int
    mean: Any
    var: Any
    std: Any
    min: Any = None
    max: Any = None
    argmin: Optional[int] = None
    argmax: Optional[int] = None


def _types(src: np.dtype, dtype: Optional[DTypeLike]) -> Tuple[np.dtype, np.dtype, np.dtype]:
    """(NumPy's dtypes of the mean and of var, the real type everything is
    computed in): bool and integers give float64, float16 is computed in
    float32, var of complex data is real; dtype= (a float or complex type)
    overrides, as NumPy's (var too: a complex dtype= gives a complex var)."""
    if dtype is None:
        out = _F64 if src.kind in "biu" else src
    else:
        out = np.dtype(dtype)
        if out.kind not in "fc":
            raise TypeError(f"dtype={out}: mean, var and std are computed in a float or "
                            "complex type")
        if src.kind == "c" and out.kind != "c":
            raise TypeError(f"{src} data cannot be averaged in {out} (it would drop the "
                            "imaginary parts)")
    if out not in _KNOWN or src.kind not in "biufc":
        raise TypeError(f"no statistics of {src} data in {out}")
    vt = out if dtype is not None else np.dtype(np.finfo(out).dtype)
    return out, vt, (_F32 if out in (_F16, _F32, np.complex64) else _F64)


def _lohi_type(src: np.dtype) -> np.dtype:
    """The type min and max are kept in: exact for every value of src."""
    if src.kind == "f":
        return _F32 if src == _F16 else src
    return np.dtype(np.uint64 if src.kind in "bu" else np.int64)


def _fields(src: np.dtype, r: np.dtype, minmax: bool) -> List[Tuple[str, np.dtype]]:
    """The accumulator's fields, widest first (C's layout and NumPy's aligned
    one then agree: no padding but at the end)."""
    fields = [("n", np.dtype(np.uint64)), ("m", r)]
    if src.kind == "c":
        fields.append(("mi", r))
    fields.append(("m2", r))
    if minmax:
        lohi = _lohi_type(src)
        fields += [("lo", lohi), ("hi", lohi), ("ilo", np.dtype(np.uint64)),
                   ("ihi", np.dtype(np.uint64))]
    return sorted(fields, key=lambda f: -f[1].itemsize)


def _struct(src: np.dtype, r: np.dtype, minmax: bool) -> Tuple[np.dtype, str]:
    """(the accumulator's dtype, registered with PyOpenCL under its C name;
    the C text declaring it and ocr_st_zero)."""
    from pyopencl.tools import get_or_register_dtype
    fields = _fields(src, r, minmax)
    name = f"ocr_st_{r.char}{'c' if src.kind == 'c' else ''}" + \
        (f"_{_lohi_type(src).char}" if minmax else "") + "_t"
    dt = np.dtype(fields, align=True)
    get_or_register_dtype(name, dt)
    decl = "".join(f" {_ctype(t)} {f};" for f, t in fields)
    zero = "".join(f" r.{f} = 0;" for f, _ in fields)
    text = (f"typedef struct {{{decl} }} {name};\n#define OCR_ST_T {name}\n"
            f"inline {name} ocr_st_zero(void) {{ {name} r;{zero} return r; }}\n")
    return dt, text


def _read(src: np.dtype) -> Tuple[str, List[str]]:
    """(the kernel's argument, the #define lines saying how cl/stats.cl reads
    element i): float16 as ushort (vload_half), bool as its byte."""
    if src == _F16:
        return "__global const ushort *x", ["#define OCR_ST_HALF 1"]
    ct = "uchar" if src.kind == "b" else _ctype(src)
    return f"__global const {ct} *x", ["#define OCR_ST_HALF 0"]


def _finish(kind: str, src: np.dtype, res: np.dtype, r: np.dtype, ddof: float
            ) -> Tuple[np.dtype, str]:
    """(the result's dtype on the device, the OpenCL C making it of the
    total r) for "mean", "var" or "std" (res: NumPy's dtype of it): one
    value (float16 as float32, narrowed after). stats' result is the
    accumulator itself."""
    root = "cfloat" if r == _F32 else "cdouble"
    if kind == "mean":
        if res.kind != "c":
            return r, "r.n ? r.m : (R)NAN"
        im = "r.mi" if src.kind == "c" else "0"  # real data, dtype= complex
        return res, f"r.n ? {root}_new(r.m, {im}) : {root}_new(NAN, NAN)"
    lit = repr(float(ddof)) + ("f" if r == _F32 else "")
    v = f"ocr_st_var(r, {lit})" if kind == "var" else f"sqrt(ocr_st_var(r, {lit}))"
    return (res, f"{root}_new({v}, 0)") if res.kind == "c" else (r, v)


def _stats_spec(src: np.dtype, res: np.dtype, r: np.dtype, minmax: bool, kind: str,
                ddof: float) -> _Spec:
    """The reduction of src data into the accumulator, finished as kind
    ("stats": the accumulator; "mean", "var", "std": one value of res)."""
    def make() -> _Spec:
        acc, decl = _struct(src, r, minmax)
        arg, read = _read(src)
        lohi = _lohi_type(src) if minmax else r
        walk = not minmax and src.kind != "c"  # the work-item's own walk
        vec = walk and src == r  # and its vector walk
        head = [f"#define R {_ctype(r)}", f"#define L {_ctype(lohi)}",
                f"#define OCR_ST_COMPLEX {int(src.kind == 'c')}",
                f"#define OCR_ST_MINMAX {int(minmax)}",
                f"#define OCR_ST_FLOAT {int(src.kind == 'f')}", *read,
                f"#define OCR_ST_WALK {int(walk)}", f"#define OCR_ST_VEC {int(vec)}"]
        if vec:
            w = _VEC_LANES[r]
            head += [f"#define OCR_ST_W {w}", f"#define OCR_ST_VT {_ctype(r)}{w}"]
        if r == _F64:  # _Spec enables it for double arguments and results only
            head.insert(0, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
        dt, finish = (acc, "r") if kind == "stats" else _finish(kind, src, res, r, ddof)
        # ocr_rk_k: the template's index of the element in the view's order
        # (i counts in the buffer), which argmin and argmax report.
        return _Spec(acc, "ocr_st_zero()", "ocr_st_merge(a, b)",
                     "ocr_st_one(OCR_ST_X, OCR_ST_XI, OCR_ST_V, ocr_rk_k)", arg, "ocr_stats",
                     None, "\n".join(head) + "\n" + decl + _kernels.source("stats.cl"),
                     res=dt, finish=finish)
    key = ("stats", src, res, r, minmax, kind, float(ddof) if kind in ("var", "std") else 0)
    return _spec(key, make)


def _flat(a: Any, queue: Any) -> Tuple[Any, Optional[builtins.slice]]:
    """(the Array the kernel reads, range= over it): a itself where it is
    contiguous (its elements in memory order), else for a strided or reversed
    1-D view, the contiguous span of its buffer that it covers, with the
    view's steps; that span shares a's events list, so the run waits for
    them and leaves its event there."""
    import pyopencl.array as cla
    if a.flags.forc or a.size <= 1:
        return a, None
    isz = a.dtype.itemsize
    if a.ndim != 1 or a.strides[0] % isz:
        raise ValueError(f"statistics of contiguous arrays and 1-D views; this one has "
                         f"strides {a.strides} for shape {a.shape}")
    step, n = a.strides[0] // isz, a.size
    span = (n - 1) * abs(step) + 1
    low = a.offset + (n - 1) * a.strides[0] if step < 0 else a.offset
    base = cla.Array(queue, (span,), a.dtype, data=a.base_data, offset=low,
                     allocator=a.allocator)
    base.events = a.events
    rng = builtins.slice(0, span, step) if step > 0 else builtins.slice(span - 1, -1, step)
    return base, rng


class _Call(NamedTuple):
    queue: Any
    view: Any  # the Array the kernel reads (_flat)
    rng: Optional[builtins.slice]  # range= over it
    out: np.dtype  # NumPy's dtype of the mean
    vt: np.dtype  # of var and std
    r: np.dtype  # the real type computed in


def _prepare(a: Any, dtype: Optional[DTypeLike], queue: Any, minmax: bool, axis: Axis
             ) -> _Call:
    """The call's parts after every check: axis covers all axes, float64
    where the device has it, minmax of real data in C order."""
    import pyopencl.array as cla
    if not isinstance(a, cla.Array):
        raise TypeError(f"a pyopencl.array.Array, not {type(a).__name__}")
    if len(_nd.normalize_axes(axis, a.ndim)) < a.ndim:
        raise NotImplementedError("mean, var, std and stats reduce all axes (axis=None)")
    queue = queue if queue is not None else a.queue
    if queue is None:
        raise ValueError("the array has no queue: pass queue=")
    out, vt, r = _types(a.dtype, dtype)
    wide = r == _F64 or a.dtype in (_F64, np.dtype(np.complex128))
    if wide and queue.device.double_fp_config == 0:
        raise TypeError(f"{a.dtype} data into {out} need float64, which {queue.device.name} "
                        "lacks (pass dtype=np.float32)")
    if minmax and (a.dtype.kind == "c" or (a.ndim > 1 and not a.flags.c_contiguous)):
        raise ValueError("minmax=True takes real data in C order (the indices are C order's)")
    view, rng = _flat(a, queue)
    return _Call(queue, view, rng, out, vt, r)


def _warn(n: int, ddof: float, mean_only: bool) -> None:
    """NumPy's RuntimeWarnings, known before the run from the size alone."""
    if mean_only and n == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
    elif not mean_only and n - ddof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)


def stats(a: Array, ddof: float = 0, dtype: Optional[DTypeLike] = None,
          queue: Optional[Queue] = None, wait_for: Events = None, minmax: bool = False, *,
          axis: Axis = None) -> Stats:
    """count, mean, var and std of a's elements (and with minmax=True its
    min, max, argmin and argmax) from one kernel run and one read of the
    result (blocking; mean, var and std give Arrays on the device). NumPy's
    semantics, as mean and var below. Waits for a.events and wait_for."""
    c = _prepare(a, dtype, queue, minmax, axis)
    _warn(a.size, ddof, False)
    rec = _run(_stats_spec(a.dtype, c.r, c.r, minmax, "stats", 0), (c.view,), c.queue,
               wait_for, range=c.rng).get()[()]
    n = int(rec["n"])
    with np.errstate(invalid="ignore", divide="ignore"):
        m = complex(rec["m"], rec["mi"] if a.dtype.kind == "c" else 0) if c.out.kind == "c" \
            else rec["m"]
        v = _as(c.r, rec["m2"]) / _as(c.r, builtins.max(n - ddof, 0))
        got = Stats(n, _as(c.out, m if n else np.nan * (1 + 1j if c.out.kind == "c" else 1)),
                    _as(c.vt, v), _as(c.vt, np.sqrt(v)))
    if not minmax or n == 0:
        return got
    return dataclasses.replace(got, min=_as(a.dtype, rec["lo"]), max=_as(a.dtype, rec["hi"]),
                               argmin=int(rec["ilo"]), argmax=int(rec["ihi"]))


def _as(dt: np.dtype, x: Any) -> Any:
    """x as a NumPy scalar of dt."""
    return np.array(x).astype(dt)[()]


def _device(kind: str, a: Any, ddof: float, dtype: Optional[DTypeLike], queue: Any,
            wait_for: Events, axis: Axis) -> Array:
    """mean, var or std as a 0-d Array of NumPy's dtype (float16: computed in
    float32 and narrowed on the device)."""
    from ._passes import _narrow
    c = _prepare(a, dtype, queue, False, axis)
    if not np.isfinite(ddof):
        raise ValueError(f"ddof={ddof!r}: a finite number")
    _warn(a.size, ddof, kind == "mean")
    want = c.out if kind == "mean" else c.vt
    res = _run(_stats_spec(a.dtype, want, c.r, False, kind, ddof), (c.view,), c.queue,
               wait_for, range=c.rng)
    return _narrow(c.queue, res, _F16, a.allocator) if want == _F16 else res


def mean(a: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None, *,
         wait_for: Events = None, axis: Axis = None) -> Array:
    """The mean of a's elements as a 0-d Array, as np.mean: bool and integer
    data give float64 (float16 is averaged in float32 and returned float16);
    dtype= a float or complex type to compute and return it in. Empty: NaN
    and NumPy's RuntimeWarning. Waits for a.events and wait_for; its event
    is in the result's and a's events."""
    return _device("mean", a, 0, dtype, queue, wait_for, axis)


def var(a: Array, ddof: float = 0, dtype: Optional[DTypeLike] = None,
        queue: Optional[Queue] = None, *, wait_for: Events = None, axis: Axis = None) -> Array:
    """The variance sum |x - mean|^2 / (n - ddof) as a 0-d Array, as np.var:
    real for complex data (a complex dtype= gives that type, as NumPy);
    dtype otherwise as mean's. n - ddof <= 0: NaN (inf where the data
    vary: NumPy's M2 / 0), with NumPy's RuntimeWarning. NaN or inf
    anywhere: NaN."""
    return _device("var", a, ddof, dtype, queue, wait_for, axis)


def std(a: Array, ddof: float = 0, dtype: Optional[DTypeLike] = None,
        queue: Optional[Queue] = None, *, wait_for: Events = None, axis: Axis = None) -> Array:
    """sqrt(var(a, ddof, dtype)) as a 0-d Array, as np.std."""
    return _device("std", a, ddof, dtype, queue, wait_for, axis)
