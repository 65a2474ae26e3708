"""Load a GGUF model once in a throw-away process: ``python probe.py MODEL.gguf``.

Home Assistant runs this file by its path (it imports nothing from the package, only the
standard library and llama_cpp) before the first load of a model in its own process. A build of
llama.cpp that uses an instruction this CPU lacks dies with SIGILL, a damaged file can segfault:
here that kills only this process.

Exit status: 0 loaded and evaluated one token (a JSON line on stdout describes the model);
3 llama_cpp cannot be imported; 4 the model cannot be loaded; 5 no context could be created
(memory); 6 evaluating a token failed; 2 wrong usage; killed by a signal: crashed.
"""

from __future__ import annotations

import ctypes
import faulthandler
import json
import sys
from typing import Any

EXIT_USAGE = 2
EXIT_IMPORT = 3
EXIT_LOAD = 4
EXIT_CONTEXT = 5
EXIT_EVAL = 6
_LOG_WARN = 3
_LOG_ERROR = 4


def _fail(code: int, message: str) -> int:
    sys.stderr.write(message.rstrip() + "\n")
    return code


def probe(model_path: str) -> int:
    """Import llama_cpp, load the model, create a small context and evaluate one token."""
    try:
        import llama_cpp
    except Exception as err:
        return _fail(EXIT_IMPORT, f"import llama_cpp failed: {type(err).__name__}: {err}")

    def log(level: int, text: bytes, _user_data: Any) -> None:
        if level in (_LOG_WARN, _LOG_ERROR):
            sys.stderr.write(text.decode("utf-8", "replace"))

    callback = llama_cpp.llama_log_callback(log)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    llama_cpp.llama_backend_init()

    model_params = llama_cpp.llama_model_default_params()
    model = llama_cpp.llama_model_load_from_file(model_path.encode(), model_params)
    if not model:
        return _fail(EXIT_LOAD, f"llama.cpp could not load {model_path}")
    ctx_params = llama_cpp.llama_context_default_params()
    ctx_params.n_ctx = 64
    ctx_params.n_batch = 8
    ctx_params.n_ubatch = 8
    ctx_params.n_threads = 1
    ctx_params.n_threads_batch = 1
    ctx = llama_cpp.llama_init_from_model(model, ctx_params)
    if not ctx:
        llama_cpp.llama_model_free(model)
        return _fail(EXIT_CONTEXT, "llama.cpp could not create a context (out of memory?)")
    try:
        vocab = llama_cpp.llama_model_get_vocab(model)
        tokens = (llama_cpp.llama_token * 8)()
        count = llama_cpp.llama_tokenize(vocab, b"Hello", 5, tokens, 8, False, False)
        if count < 1:
            return _fail(EXIT_EVAL, "the model's vocabulary cannot tokenize text")
        batch = llama_cpp.llama_batch_get_one(tokens, 1)
        code = llama_cpp.llama_decode(ctx, batch)
        if code != 0:
            return _fail(EXIT_EVAL, f"evaluating one token failed (llama_decode returned {code})")
        description = ctypes.create_string_buffer(256)
        llama_cpp.llama_model_desc(model, description, len(description))
        report = {
            "llama_cpp": getattr(llama_cpp, "__version__", None),
            "description": description.value.decode("utf-8", "replace"),
            "parameters": int(llama_cpp.llama_model_n_params(model)),
        }
        sys.stdout.write(json.dumps(report) + "\n")
    finally:
        llama_cpp.llama_free(ctx)
        llama_cpp.llama_model_free(model)
    return 0


def main(argv: list[str]) -> int:
    """Run the probe on argv[1]."""
    if len(argv) != 2:
        return _fail(EXIT_USAGE, "usage: probe.py MODEL.gguf")
    # On SIGSEGV/SIGILL/SIGBUS/SIGABRT write the Python stack to stderr, then die of the signal.
    faulthandler.enable()
    return probe(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
