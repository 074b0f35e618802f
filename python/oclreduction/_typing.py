"""The types of the package's signatures. PyOpenCL's classes are named for
type checkers (imported here only when one reads this file); at run time
they are Any."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional, Sequence, SupportsIndex, Tuple, Union

import numpy as np
from numpy.typing import DTypeLike

if TYPE_CHECKING:
    from typing import TypeAlias

    import pyopencl as cl
    import pyopencl.array as cla

    Array: TypeAlias = cla.Array
    Queue: TypeAlias = cl.CommandQueue
    Event: TypeAlias = cl.Event
    Context: TypeAlias = cl.Context
    Device: TypeAlias = cl.Device
    Buffer: TypeAlias = cl.Buffer
else:
    Array = Queue = Event = Context = Device = Buffer = Any

# A value NumPy takes as one element (initial=).
Scalar = Union[int, float, complex, np.generic]
# Operators by name, as the library spells them, and as value() also takes them.
Op = Literal["sum", "prod", "min", "max", "and", "or", "xor"]
HostOp = Literal["sum", "prod", "min", "max", "and", "or", "xor", "bitwise_and", "bitwise_or",
                 "bitwise_xor"]
ArgOp = Literal["argmin", "argmax"]
# axis=: None, one axis, or a tuple of them (NumPy's).
Axis = Union[None, SupportsIndex, Tuple[SupportsIndex, ...]]
Events = Optional[Sequence[Event]]
# histogram's bins=: a number of bins or the edges.
Bins = Union[SupportsIndex, Sequence[float], np.ndarray]

__all__ = ["Array", "Queue", "Event", "Context", "Device", "Buffer", "Scalar", "Op", "HostOp",
           "ArgOp", "Axis", "Events", "Bins", "DTypeLike", "Optional"]
