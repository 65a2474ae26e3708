"""The installed llama.cpp runtime: built without ggml's AMX kernels.

GGML_NATIVE compiles the AMX kernels in on CPUs that have AMX (newer Xeons), and that path
segfaults on prompt batches of Q4_K weights (llama.cpp issue 20824, closed without a fix):
scripts/lib/llama_wheel.sh and .github/workflows/wheels.yml switch AMX off. On a CPU without AMX
the build has none anyway; on one with AMX this fails when the switch is lost.
"""

from __future__ import annotations

import re

import pytest


def test_runtime_has_no_amx_kernels() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    llama_cpp.llama_backend_init()
    info = llama_cpp.llama_print_system_info().decode()
    assert "CPU :" in info, info  # the CPU backend reports its features here
    assert not re.search(r"\bAMX\w* = 1", info), f"llama.cpp built with AMX kernels: {info}"
