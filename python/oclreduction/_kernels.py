"""The package's OpenCL C: every kernel it builds itself lives in a file of
cl/ beside this module (shipped in the wheel; none in a .py file), read once
on first use.

A file is built as it is, with -D options for its switches, or after text
the package prepends: #define lines (stats.cl, nrm2.cl), or for custom.cl,
the custom-reduction template (the C library's own file, staged here from
the project's cl/ and shipped the same way), the prelude of a
ReductionKernel (_custom._prelude, the contract at the top of custom.cl).
No file is filled in or edited. loaded records the files read
(tests/python/oclgrind_kernels.py checks that its cases read every file of
cl/).
"""
from __future__ import annotations

import os
import threading
from typing import Dict, List, Set

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cl")

_texts: Dict[str, str] = {}  # file name -> its text (the tests' mutants replace entries)
_lock = threading.Lock()
loaded: Set[str] = set()


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

