"""Generate a few tokens with an installed runtime wheel: ``python generate.py MODEL TOKENS``.

Runs inside the interpreter under test (a musl CPython, natively or under qemu), so it imports
only the standard library, llama_cpp and the product's models/cpu_variant.py. It prints one
JSON line: the CPU variant ggml kept (as the product's diagnostics tell it),
the features llama.cpp reports, how many tokens it generated and how fast. A random-weight
model may pick any token, end-of-turn included, so it samples the given number of tokens
through ``Llama.generate`` (which does not stop at end-of-generation) and asserts only their
count.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
from pathlib import Path
import sys
import time
from types import ModuleType


def product_cpu_variant() -> ModuleType:
    """The product's own models/cpu_variant.py, loaded by its path (no Home Assistant here)."""
    path = (
        Path(__file__).resolve().parents[2] / "custom_components/local_agent/models/cpu_variant.py"
    )
    spec = importlib.util.spec_from_file_location("cpu_variant", path)
    if spec is None or spec.loader is None:
        raise ImportError(path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    """Load MODEL, generate TOKENS tokens greedily, print the report."""
    model, tokens = argv[1], int(argv[2])
    import llama_cpp

    cpu_variant = product_cpu_variant()

    threads = len(os.sched_getaffinity(0))
    started = time.perf_counter()
    llm = llama_cpp.Llama(
        model_path=model, n_ctx=256, n_threads=threads, n_threads_batch=threads, verbose=False
    )
    loaded = time.perf_counter()
    prompt = llm.tokenize(b"<|im_start|>user\nTurn on the kitchen light<|im_end|>\n", special=True)
    generated = list(itertools.islice(llm.generate(prompt, top_k=1, temp=0.0), tokens))
    seconds = time.perf_counter() - loaded
    report = {
        "python": sys.version.split()[0],
        "variant": cpu_variant.loaded_cpu_variant(),
        "system_info": llama_cpp.llama_print_system_info().decode().strip(),
        "threads": threads,
        "load_seconds": round(loaded - started, 2),
        "generated_tokens": len(generated),
        "tokens_per_second": round(len(generated) / seconds, 2),
    }
    print(json.dumps(report))
    return 0 if len(generated) == tokens else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
