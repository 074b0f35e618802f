"""The package tested is the built or installed one, complete in itself: the
library inside it, found without OCLREDUCTION_LIBRARY or LD_LIBRARY_PATH,
and one version everywhere (CMakeLists.txt's project(VERSION)).
OCR_EXPECT_PACKAGE_DIR: where the package must come from; OCR_EXPECT_INSTALLED:
pip installed it (tests/python_wheel_test.sh)."""
import os
import re

import numpy as np
import pyopencl.array as cla
from conftest import SOURCE

import oclreduction
from oclreduction import _native


def test_package_comes_from_where_it_should():
    here = os.path.dirname(os.path.abspath(oclreduction.__file__))
    assert not here.startswith(os.path.join(SOURCE, "python") + os.sep), \
        "the source tree's python/ was imported instead of a built package"
    expected = os.environ.get("OCR_EXPECT_PACKAGE_DIR")
    if expected:
        assert os.path.realpath(here) == os.path.realpath(os.path.join(expected, "oclreduction"))
    assert os.path.dirname(_native.LIBRARY_PATH) == here and os.path.isfile(_native.LIBRARY_PATH)


def test_no_environment_needed(queue):
    if os.environ.get("OCR_EXPECT_INSTALLED"):  # the wheel test clears them
        assert "OCLREDUCTION_LIBRARY" not in os.environ and "LD_LIBRARY_PATH" not in os.environ
    a = cla.to_device(queue, np.arange(1000003, dtype=np.int32))
    assert oclreduction.sum(a, dtype=np.int64).get()[()] == 1000003 * 1000002 // 2


def test_one_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        v = re.search(r"project\(oclreduction VERSION ([0-9.]+)", f.read()).group(1)
    assert oclreduction.__version__ == oclreduction.version() == v
    if os.environ.get("OCR_EXPECT_INSTALLED"):  # pip's metadata (the build tree has none)
        from importlib.metadata import version
        assert version("oclreduction") == v
