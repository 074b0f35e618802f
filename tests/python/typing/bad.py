"""A consumer the type checker must refuse, one mistake a line; each line
ends with the error code mypy must report for it. (PyOpenCL without type
hints, as Debian's 2022.3, makes its classes Any: no line here needs them.)"""
import numpy as np
import pyopencl.array as cla

import oclreduction as ocr


def misuse(a: cla.Array) -> None:
    ocr.value(a, "summ")  # E: arg-type
    ocr.sum(a, axis="rows")  # E: arg-type
    ocr.min(a, initial="none")  # E: arg-type
    ocr.segment_reduce(a, [0, 4], op="argmax")  # E: arg-type
    ocr.sum(a, dtype=np.float32, accurate="yes")  # E: arg-type
    ocr.argmax(a, axis=(0, 1))  # E: arg-type
    ocr.version(1)  # E: call-arg
    ocr.stats(a, minmax="yes")  # E: arg-type
    ocr.var(a, 1, np.float32, None, None)  # E: misc
    ocr.histogram(a, density="yes")  # E: arg-type
    ocr.bincount(a, minlength=2.5)  # E: arg-type
