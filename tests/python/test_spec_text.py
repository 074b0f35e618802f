"""A ReductionKernel's text read as the compiler reads it (issue 51): a
line splice (backslash-newline) inside a %: digraph or after a // comment,
a trigraph, a build option, none may redefine a name the kernels are built
with. The C library refuses such a spec; the package's own template
(cl/custom.cl, where a preamble's #define is allowed as in PyOpenCL) refuses
a #define/#undef/-D/-U of one of its names, so no sum is wrong."""
import numpy as np
import pyopencl.array as cla
import pytest

import oclreduction as ocr

N = 1 << 20


def ones_sum(queue, preamble="", map_expr="x[i]", options=None):
    k = ocr.ReductionKernel(queue.context, np.float32, "0", "a+b", map_expr,
                            "__global const float *x", preamble=preamble, options=options)
    x = cla.to_device(queue, np.ones(N, np.float32))
    return float(k(x, queue=queue).get())


# The splice spellings: the C library's path (no '#' seen) and the
# package's template (a '#' line beside it) alike.
@pytest.mark.parametrize("preamble", [
    "%\\\n:define get_group_id(d) 0\n",
    "%\\ \t\n:define get_group_id(d) 0\n",
    "#define MYVAL 1\n%\\\n:define get_group_id(d) 0\n",
    "// \\\n/*\n#define get_local_id(d) 0\n// */\n#define MYVAL 1\n",
    "/* */ # define get_global_size(d) 1\n",
    "#undef barrier\n",
    "#define ocr_rk_tree(t, v) (v)\n",
    "#define OCR_RK_LOCAL_SIZE 1\n",
])
def test_splice_never_wrong(queue, preamble):
    try:
        got = ones_sum(queue, preamble)
    except ValueError as e:
        assert "package's kernel is built with" in str(e) or "??" in str(e)
        return
    assert got == float(N)


@pytest.mark.parametrize("preamble", [
    "%\\\n:define get_group_id(d) 0\n",
    "#define MYVAL 1\n%\\\n:define get_group_id(d) 0\n",
    "// ok\n#  define get_local_id(d) 0\n",
])
def test_redefinition_raises(queue, preamble):
    with pytest.raises(ValueError, match="get_(group|local)_id"):
        ones_sum(queue, preamble)


def test_trigraph_raises(queue):
    with pytest.raises(ValueError, match="trigraph"):
        ones_sum(queue, "??=define MYVAL 1\n")
    with pytest.raises(ValueError, match="trigraph"):
        ones_sum(queue, map_expr="x[i] ??/\n+ 0")


@pytest.mark.parametrize("options", [["-Dfloat=int"], ["-D float=int"], "-Uget_global_id",
                                     ["-cl-std=CL1.2", "-D", "barrier(x)=mem_fence(x)"]])
def test_options_raise(queue, options):
    with pytest.raises(ValueError, match="build option"):
        ones_sum(queue, options=options)


def test_legitimate_text_still_works(queue):
    # a multi-line macro (a splice inside a directive), '#' lines, comments,
    # a '\n' character constant, a -D of the caller's own
    pre = ("#define TWICE(v) \\\n    ((v) + (v))\n// a comment\n/* a block */\n"
           "constant char nl = '\\n';\n")
    assert ones_sum(queue, pre, "TWICE(x[i])") == 2.0 * N
    assert ones_sum(queue, "#define MYVAL 3\n", "x[i] * MYVAL") == 3.0 * N
    assert ones_sum(queue, "", "x[i] * MY_THING", options=["-DMY_THING=1"]) == float(N)
    assert ones_sum(queue, "float twice(float v) { return v * 2.0f; }", "twice(x[i])") == 2.0 * N
