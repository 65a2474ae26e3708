"""Which CPU variant of ggml the runtime runs on: the library its CPU backend was registered from.

A runtime wheel holds one libggml-cpu-<variant>.so per instruction-set level; ggml loads each,
scores it against this CPU and keeps the best. musl never unloads a library, so on Home
Assistant OS every variant ggml tried stays mapped into the process: only the CPU backend's
registration, and the library its address lies in (dladdr), tell the one ggml kept.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Final

VARIANT_PREFIX: Final = "libggml-cpu-"


class _DlInfo(ctypes.Structure):
    _fields_ = (
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    )


def _mapped_library(name: str) -> str | None:
    """Return the path of a library this process has mapped, None if it has none by that name."""
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)  # address, perms, offset, device, inode, path
        if len(fields) == 6 and fields[5].rsplit("/", 1)[-1] == name:
            return fields[5]
    return None


def loaded_cpu_variant() -> str | None:
    """Return the CPU variant ggml runs on (`zen4`, `armv8.2_2`, …).

    None before the runtime is loaded, and with a build whose CPU kernels are inside libggml
    (no variants). Blocking: reads /proc/self/maps. Standard library only, and Python 3.13
    syntax: scripts/runtime_wheels/generate.py runs this file in the musl CPython of the checks.
    """
    ggml_path = _mapped_library("libggml.so")
    if ggml_path is None:
        return None
    try:
        ggml, libc = ctypes.CDLL(ggml_path), ctypes.CDLL(None)
    except OSError:
        return None
    find = getattr(ggml, "ggml_backend_reg_by_name", None)
    if find is None:
        return None
    find.restype = ctypes.c_void_p
    find.argtypes = (ctypes.c_char_p,)
    registration = find(b"CPU")
    info = _DlInfo()
    if not registration or not libc.dladdr(ctypes.c_void_p(registration), ctypes.byref(info)):
        return None
    name = Path(os.fsdecode(info.dli_fname or b"")).name
    if not name.startswith(VARIANT_PREFIX) or not name.endswith(".so"):
        return None
    return name.removeprefix(VARIANT_PREFIX).removesuffix(".so")
