"""The package's OpenCL C: every kernel it builds itself lives in a file of
cl/ beside this module (shipped in the wheel; none in a .py file), read once
on first use.

A file is built as it is, with -D options for its switches, or after #define
lines the package prepends (stats.cl, nrm2.cl). The one file with text to
fill is custom.cl, the ReductionKernel template: fill() replaces each
@NAME@ placeholder (a name in capitals between two at signs) by its value,
and refuses a placeholder left unfilled or a value with no placeholder.
loaded records the files read (tests/python/oclgrind_kernels.py checks that
its cases read every file of cl/).
"""
from __future__ import annotations

import os
import re
import threading
from typing import Dict, List, Set

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cl")

_texts: Dict[str, str] = {}  # file name -> its text (the tests' mutants replace entries)
_lock = threading.Lock()
loaded: Set[str] = set()
_PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")


def files() -> List[str]:
    """The names of the .cl files the package ships."""
    return sorted(f for f in os.listdir(DIR) if f.endswith(".cl"))


def source(name: str) -> str:
    """The text of cl/<name>, read once."""
    text = _texts.get(name)
    if text is None:
        with _lock:
            text = _texts.get(name)
            if text is None:
                with open(os.path.join(DIR, name), encoding="utf-8") as f:
                    text = _texts[name] = f.read()
    loaded.add(name)
    return text


def fill(name: str, **values: str) -> str:
    """cl/<name> with each @KEY@ replaced by values[KEY] (every placeholder
    filled, every value used: else ValueError)."""
    text = source(name)
    wanted = set(_PLACEHOLDER.findall(text))
    if wanted != set(values):
        raise ValueError(f"{name}: placeholders {sorted(wanted)}, values {sorted(values)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)
