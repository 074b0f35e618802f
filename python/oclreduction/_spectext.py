"""What a ReductionKernel's text may not do: redefine the package's own
names. Where the C library takes a spec it checks the text itself
(host/lib/reducer/ocr_custom_spec.c: no '#', no '\\' outside a character
constant, no "??"); elsewhere the text goes into the package's prelude of
the same template, cl/custom.cl, where a preamble's #define stays allowed (PyOpenCL's preambles
hold them), but not one of a name the template uses: "%\\<line end>:define
get_group_id(d) 0" made a sum of 2^20 ones 131072.0. So the text is read as
the compiler reads it (trigraphs refused, lines spliced, comments and
literals blanked) and each #define/#undef's name checked."""
from __future__ import annotations

import re
import shlex
from typing import FrozenSet, Optional, Sequence

from . import _kernels

_SPLICE = re.compile(r"\\[ \t\v\f\r]*\n")
_TOKENS = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?",
                     re.S)
_DIRECTIVE = re.compile(r"^[ \t\v\f\r]*(?:#|%:)[ \t\v\f\r]*(define|undef)[ \t\v\f\r]+"
                        r"([A-Za-z_][A-Za-z0-9_]*)", re.M)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The walk a preamble may define on purpose (cl/custom.cl: OCR_RK_SEQ's hooks).
_HOOKS = frozenset({"OCR_RK_SEQ", "OCR_RK_SEQ_BEGIN", "OCR_RK_SEQ_STEP", "OCR_RK_SEQ_END",
                    "OCR_RK_SEQ_VEC"})
_OWN: Optional[FrozenSet[str]] = None


def _blank(text: str) -> str:
    """text as the compiler's phase 3 sees it: lines spliced, each comment
    one space, each literal a 0 (no '#' of theirs is a directive)."""
    text = _SPLICE.sub("", text)
    return _TOKENS.sub(lambda m: " " if m.group(0)[0] == "/" else "0", text)


def _own() -> FrozenSet[str]:
    """Every identifier of the template's code (its comments left out): OpenCL C's words and built-ins it calls, the
    ocr_rk_ names, the -D switches."""
    global _OWN
    if _OWN is None:
        code = _blank(_kernels.source("custom.cl"))
        types = {t + w for t in ("bool", "char", "uchar", "short", "ushort", "int", "uint",
                                 "long", "ulong", "half", "float", "double")
                 for w in ("", "2", "3", "4", "8", "16")}  # what a prelude's types name
        _OWN = frozenset(_WORD.findall(code)) - _HOOKS | types | {"size_t"}
    return _OWN


def _refused(name: str) -> bool:
    # the template's namespace (every name it adds is ocr_rk_...; its -D
    # switches OCR_RK_...), a name of its code, OpenCL C's types
    return name in _own() or name.startswith(("ocr_rk_", "OCR_RK_")) and name not in _HOOKS


def check(what: str, text: str) -> None:
    """Raise ValueError where text (a preamble or an expression) would
    define or undefine a name the package's template uses, or holds a
    trigraph (??= is a '#', ??/ a backslash)."""
    if "??" in text:
        raise ValueError(f"ReductionKernel: the {what} holds \"??\" (a trigraph's start: ??= is "
                         f"a '#', ??/ a backslash to the compiler): {text!r}")
    for m in _DIRECTIVE.finditer(_blank(text)):
        name = m.group(2)
        if _refused(name):
            raise ValueError(f"ReductionKernel: the {what} would #{m.group(1)} {name}, a name "
                             f"the package's kernel is built with (after line splices): "
                             f"{text!r}")


def check_options(options: Sequence[str]) -> None:
    """Raise ValueError where a build option would -D or -U a name the
    template uses (-Dfloat=int made a float sum -3.6e24; the C library
    refuses it for its own kernels: ocr_build_options_check)."""
    words = [w for o in options for w in shlex.split(o)]
    for k, w in enumerate(words):
        if w[:2] not in ("-D", "-U"):
            continue
        arg = w[2:] or (words[k + 1] if k + 1 < len(words) else "")
        m = _WORD.match(arg)
        if m and _refused(m.group(0)):
            raise ValueError(f"ReductionKernel: the build option {w[:2]} {m.group(0)} would "
                             f"redefine a name the package's kernel is built with")
