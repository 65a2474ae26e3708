"""Process memory: what Home Assistant holds, and giving freed model memory back to the system."""

from __future__ import annotations

from collections.abc import Callable
import ctypes
import ctypes.util
from functools import cache
from typing import cast

import psutil


def process_rss() -> int:
    """Return the resident memory of this process in bytes. Blocking (reads /proc)."""
    return int(psutil.Process().memory_info().rss)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """Return glibc's malloc_trim, None on other C libraries (musl returns memory itself)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except OSError, AttributeError:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return cast(Callable[[int], int], trim)


def release_freed_memory() -> None:
    """Hand memory freed by an unloaded model back to the system.

    glibc keeps freed heap pages for reuse: after a model is unloaded the process would still
    look ~50 MB bigger per load than before it (measured with Gemma 3 270M). Blocking.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
