"""The ctypes declarations are the headers': the package's generated module
equals what python/gen_declarations.py reads from include/oclreduction/*.h
today, and the reader copes with what the headers may grow (export macros,
attributes, C++ guards) and refuses what it cannot map."""
import ctypes
import glob
import importlib.util
import os

import pytest
from conftest import SOURCE

from oclreduction import _declarations as D

HEADERS = sorted(glob.glob(os.path.join(SOURCE, "include", "oclreduction", "*.h")))


def gen():
    spec = importlib.util.spec_from_file_location(
        "gen_declarations", os.path.join(SOURCE, "python", "gen_declarations.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read(paths):
    texts = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            texts.append(f.read())
    return texts


def test_generated_module_matches_the_headers():
    g = gen()
    model = g.parse(read(HEADERS))
    assert D.ENUMS == model["enums"]
    assert D.PROTOTYPES == {n: model["functions"][n] for n in g.FUNCTIONS}
    # the generated text itself, apart from the header list in its first line
    text = g.emit(model, [os.path.basename(h) for h in HEADERS])
    with open(D.__file__, encoding="utf-8") as f:
        assert f.read().split("\n", 1)[1] == text.split("\n", 1)[1]


def test_every_status_and_type_is_known():
    assert D.ENUMS["ocr_status"]["OCR_OK"] == 0
    assert list(D.ENUMS["ocr_status"].values()) == list(range(len(D.ENUMS["ocr_status"])))
    assert ctypes.sizeof(D.ocr_value) == 16  # a value, or argmin/argmax: value bits and index
    assert D.ocr_value.arg.offset == 0 and D.ocr_arg_part.index.offset == 8
    assert [f[0] for f in D.ocr_reducer_options._fields_] == [
        "size", "kernel_dir", "local_size", "groups", "build_options", "ignore_tuning", "accurate"]


VARIANT = """
#ifndef X_H
#define X_H
#ifdef __cplusplus
extern "C" {
#endif
/* a comment; with a semicolon */
typedef enum { A_ZERO, A_TWO = 2, A_THREE, A_BIG = 1 << 4 } a_enum; // trailing
typedef struct thing thing;
typedef struct { const char *name; size_t n; a_enum e; } opts;
typedef void (*cb)(void *user, const char *msg);
OCR_API a_enum ocr_version(void) __attribute__((visibility("default")));
OCR_API OCR_DEPRECATED int ocr_status_name(const opts *o, thing **out, cl_uint n,
                                           const cl_event *wait, cb fn);
#ifdef __cplusplus
}
#endif
#endif
"""


def test_reader_copes_with_export_macros_and_attributes():
    g = gen()
    m = g.parse([VARIANT])
    assert m["enums"]["a_enum"] == {"A_ZERO": 0, "A_TWO": 2, "A_THREE": 3, "A_BIG": 16}
    assert m["functions"]["ocr_version"] == ("a_enum", [])
    assert m["functions"]["ocr_status_name"] == (
        "int", ["const opts *", "thing * *", "cl_uint", "const cl_event *", "cb"])
    needed = []
    assert g._ctype("const opts *", m, needed) == "ctypes.POINTER(opts)" and needed == ["opts"]
    assert g._ctype("thing * *", m, []) == "ctypes.POINTER(ctypes.c_void_p)"
    assert g._ctype("cb", m, []) == "ctypes.c_void_p"
    assert g._ctype("a_enum", m, []) == "ctypes.c_int"


def test_reader_reads_fields_that_share_a_type():
    # `double lower, upper;` (ocr_histogram_spec): each name a field of the type
    g = gen()
    m = g.parse(["typedef struct { double lo, hi; int a[4], b; char *p, *q; } s;"])
    fields = m["records"]["s"][1]
    assert fields[:4] == [("lo", ("double", [])), ("hi", ("double", [])), ("a", ("int", ["4"])),
                          ("b", ("int", []))]
    assert fields[4][0] is None  # a pointer after the first name is not read
    names = [f[0] for f in D.ocr_histogram_spec._fields_]
    assert names[:5] == ["size", "kind", "bins", "lower", "upper"]


def test_reader_refuses_what_it_cannot_map():
    g = gen()
    m = g.parse(["typedef struct { int a; } s; mystery_t f(s x);"])
    with pytest.raises(g.HeaderError, match="mystery_t"):
        g._ctype("mystery_t", m, [])
    with pytest.raises(g.HeaderError, match="ocr_version is not declared"):
        g.emit(m, ["x.h"])


def test_every_function_the_package_calls_is_declared():
    """A library function called without its prototype gets ctypes' default
    int arguments: a 64-bit handle cut to 32 bits (ocr_reducer_custom_finish
    segfaulted so under PyPI's PyOpenCL, whose handles lie above 2^32)."""
    import re
    called = set()
    for p in glob.glob(os.path.join(SOURCE, "python", "oclreduction", "*.py")):
        with open(p, encoding="utf-8") as f:
            called |= set(re.findall(r"\blib\.(ocr_\w+)", f.read()))
    assert called and called <= set(D.FUNCTIONS), sorted(called - set(D.FUNCTIONS))
