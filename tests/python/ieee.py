"""IEEE's sum of an array in its own type, for the accurate-sum tests
(tests/python/test_accurate.py and tests/scripts/accurate_fsum_test.py)."""
import math
from fractions import Fraction

import numpy as np


def ieee_sum(x):
    """The IEEE sum of x in x's type: NaN where a NaN is or +inf meets -inf,
    +-inf where an infinity is or the exact sum overflows, else the correctly
    rounded exact sum. math.fsum where it answers; where its float64 partials
    overflow (OverflowError), the exact sum as a Fraction, its overflow
    mapped to an infinity of its sign."""
    v = x.astype(np.float64).tolist()
    if any(math.isnan(a) for a in v) or (math.inf in v and -math.inf in v):
        return x.dtype.type(math.nan)
    if math.inf in v or -math.inf in v:
        return x.dtype.type(math.inf if math.inf in v else -math.inf)
    try:
        s = math.fsum(v)
    except OverflowError:
        e = sum(Fraction(a) for a in v)
        try:
            s = float(e)
        except OverflowError:
            s = math.inf if e > 0 else -math.inf
    with np.errstate(over="ignore"):
        return x.dtype.type(s)  # float32: past FLT_MAX (rounded), an infinity
