"""models/cpu_variant.py in this process: the variant is one the runtime ships, or None.

scripts/wheels --check runs it on the glibc wheel (tests/engine); its musl checks run the same
file where every variant ggml tried stays mapped (musl never unloads a library), and compare it
with the variant forced.
"""

from __future__ import annotations

import ast
from pathlib import Path
import sys

import llama_cpp

from custom_components.local_agent.models import cpu_variant
from custom_components.local_agent.models.cpu_variant import VARIANT_PREFIX
from custom_components.local_agent.models.cpu_variant import loaded_cpu_variant
from testing.model_files import ensure_qwen35_test_model


def test_the_variant_is_the_library_ggml_registered_its_cpu_backend_from() -> None:
    llama_cpp.Llama(model_path=str(ensure_qwen35_test_model()), n_ctx=64, verbose=False)
    lib = Path(llama_cpp.__file__).parent / "lib"
    shipped = {path.name for path in lib.glob(f"{VARIANT_PREFIX}*.so")}

    variant = loaded_cpu_variant()

    if shipped:  # a runtime wheel of ours: one of its variants, never a guess
        assert f"{VARIANT_PREFIX}{variant}.so" in shipped
    else:  # the CPU kernels are inside libggml: there is no variant to tell
        assert variant is None


def test_the_file_runs_where_the_wheel_checks_load_it() -> None:
    """scripts/runtime_wheels/generate.py loads this file by its path in the musl CPython 3.13 of
    the checks, where there is no Home Assistant: standard library only, Python 3.13 syntax."""
    path = Path(cpu_variant.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 13))
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
        )
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
