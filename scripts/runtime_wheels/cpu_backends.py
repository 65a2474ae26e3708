"""Register ggml's CPU backend variants that ship in llama_cpp/lib (Local Agent's runtime wheel).

scripts/wheels builds llama.cpp with GGML_BACKEND_DL and GGML_CPU_ALL_VARIANTS: the CPU kernels
are separate libraries, ``libggml-cpu-<variant>.so``, one per instruction-set level (x64, sse42
… zen4 on x86_64; armv8.0_1 … armv9.2_2 on aarch64). ggml asks each variant whether this CPU
runs it (cpuid / hwcaps) and loads the best. It looks for them next to the executable and in
the working directory only, so this module, added to the wheel as ``llama_cpp._cpu_backends``
and called at the end of ``import llama_cpp``, points ggml at the package's lib folder before
``llama_backend_init()`` would look anywhere else.

``LLAMA_CPP_CPU_VARIANT=<variant>`` loads that variant alone instead: to prove a lower one
works, or to step around one that misbehaves on some CPU. ggml refuses a variant this CPU
cannot run, and so does the import then (ImportError).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

VARIANT_ENVIRONMENT = "LLAMA_CPP_CPU_VARIANT"
VARIANT_PREFIX = "libggml-cpu-"


def library_dir() -> Path:
    """Return the folder llama_cpp loads its libraries from."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")
    return Path(override) if override else Path(__file__).resolve().parent / "lib"


def load_cpu_backends() -> None:
    """Load the CPU variant this CPU runs best (or the one the environment names)."""
    lib = library_dir()
    if not any(lib.glob(f"{VARIANT_PREFIX}*.so")):
        return  # a build with the CPU backend inside libggml
    ggml = ctypes.CDLL(str(lib / "libggml.so"))
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    if ggml.ggml_backend_reg_count():
        return
    variant = os.environ.get(VARIANT_ENVIRONMENT)
    if variant:
        path = lib / f"{VARIANT_PREFIX}{variant}.so"
        ggml.ggml_backend_load.restype = ctypes.c_void_p
        ggml.ggml_backend_load.argtypes = [ctypes.c_char_p]
        if not path.is_file() or not ggml.ggml_backend_load(os.fsencode(path)):
            message = f"{VARIANT_ENVIRONMENT}={variant}: ggml cannot load {path} on this CPU"
            raise ImportError(message)
        return
    ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
    ggml.ggml_backend_load_all_from_path(os.fsencode(lib))
