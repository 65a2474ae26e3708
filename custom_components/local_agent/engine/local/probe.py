"""Run a model once in a throw-away process: ``python probe.py MODEL.gguf [options]``.

Home Assistant runs this file by its path (it imports nothing from the package, only the
standard library and llama_cpp) before the first load of a model in its own process. A build of
llama.cpp that uses an instruction this CPU lacks dies with SIGILL, a damaged file can segfault,
a broken kernel can crash only on large batches: here that kills only this process.

So the probe does what inference does, with the entry's own settings (context size, threads,
batch size, flash attention, key cache): it creates the same context, evaluates one prompt
batch as large as the engine's batch, then generates a few tokens one at a time.

Exit status: 0 it worked (a JSON line on stdout describes the model and the run); 3 llama_cpp
cannot be imported; 4 the model cannot be loaded; 5 no context could be created (memory);
6 evaluating failed; 2 wrong usage; killed by a signal: crashed.
"""

from __future__ import annotations

import argparse
import ctypes
import faulthandler
import json
import sys
import time
from typing import Any

EXIT_USAGE = 2
EXIT_IMPORT = 3
EXIT_LOAD = 4
EXIT_CONTEXT = 5
EXIT_EVAL = 6
GENERATED_TOKENS = 4
# The start of the last line a failed load writes; llama.cpp's reason follows.
LOAD_FAILED = "llama.cpp could not load the model: "
# Text the prompt batch is made of (repeated up to the batch size).
PROMPT_TEXT = (
    "<|im_start|>system\nYou control a home. Turn on the kitchen light, then tell me the "
    "temperature in the living room and whether the front door is locked.<|im_end|>\n"
)
_LOG_WARN = 3
_LOG_ERROR = 4
FLASH_ATTENTION_CHOICES = ("auto", "on", "off")
KEY_CACHE_CHOICES = ("auto", "f16", "q8_0")
# Values per q8_0 block: a key shorter than a whole number of blocks cannot be stored so.
Q8_0_BLOCK = 32


def key_cache_type(wanted: str, *, gpu: bool, key_length: int | None) -> str:
    """Return how the attention cache stores its keys: "f16" or "q8_0".

    The engine (engine/local/llama.py) and this probe decide alike. Automatic is q8_0 on a
    CPU-only runtime: the cache a generated token reads shrinks by a quarter and its keys are
    compared with llama.cpp's 8-bit dot products (scripts/bench turn, speed twin at 1000
    entities: a whole command 4.6-6.1 s against 5.5-6.5 s, reports/benchmarks.md); 16-bit with
    a GPU, as llama.cpp's default. A model whose key length is no multiple of q8_0's block
    keeps 16-bit keys.
    """
    if key_length is None or key_length <= 0 or key_length % Q8_0_BLOCK:
        return "f16"
    if wanted == "auto":
        return "f16" if gpu else "q8_0"
    return "q8_0" if wanted == "q8_0" else "f16"


def llama_reason(errors: list[str]) -> str | None:
    """Return llama.cpp's own reason for a failed load, from its error lines.

    "llama_model_load: error loading model: tensor 'x' data is not within the file bounds,
    model is corrupted or incomplete" gives what follows "error loading model: "; the lines
    that only say that loading failed are no reason.
    """
    for line in errors:
        reason = line.partition("error loading model: ")[2] or line.partition(": ")[2]
        if reason.strip() and reason.strip() != "failed to load model":
            return reason.strip()
    return None


def _fail(code: int, message: str) -> int:
    sys.stderr.write(message.rstrip() + "\n")
    return code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="probe.py", description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--n-ctx", type=int, default=512)
    parser.add_argument("--n-batch", type=int, default=512)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--flash-attention", choices=FLASH_ATTENTION_CHOICES, default="auto")
    parser.add_argument("--key-cache", choices=KEY_CACHE_CHOICES, default="auto")
    parser.add_argument("--no-mmap", action="store_true")
    return parser


def _prompt_tokens(llama_cpp: Any, vocab: Any, count: int) -> Any:
    """Return a ctypes array of `count` real tokens of the model (PROMPT_TEXT repeated)."""
    text = PROMPT_TEXT.encode()
    room = len(text) + 8
    pieces = (llama_cpp.llama_token * room)()
    found = llama_cpp.llama_tokenize(vocab, text, len(text), pieces, room, False, True)
    if found < 1:
        return None
    tokens = (llama_cpp.llama_token * count)()
    bos = llama_cpp.llama_vocab_bos(vocab)
    start = 0
    if bos >= 0:
        tokens[0] = bos
        start = 1
    for index in range(start, count):
        tokens[index] = pieces[(index - start) % found]
    return tokens


def _meta_number(llama_cpp: Any, model: Any, key: str) -> int | None:
    buffer = ctypes.create_string_buffer(128)
    if llama_cpp.llama_model_meta_val_str(model, key.encode(), buffer, len(buffer)) < 0:
        return None
    try:
        return int(buffer.value.decode("utf-8", "replace"))
    except ValueError:
        return None


def _key_length(llama_cpp: Any, model: Any) -> int | None:
    """Return the attention's key length, read as engine/local/context_size.py's key_length."""
    buffer = ctypes.create_string_buffer(128)
    if llama_cpp.llama_model_meta_val_str(model, b"general.architecture", buffer, 128) < 0:
        return None
    architecture = buffer.value.decode("utf-8", "replace")
    if found := _meta_number(llama_cpp, model, f"{architecture}.attention.key_length"):
        return found
    heads = int(llama_cpp.llama_model_n_head(model))
    return int(llama_cpp.llama_model_n_embd(model)) // heads if heads > 0 else None


def _context_params(llama_cpp: Any, args: argparse.Namespace, keys: str) -> Any:
    """Return the parameters of the context the engine creates (engine/local/llama.py)."""
    params = llama_cpp.llama_context_default_params()
    params.n_ctx = args.n_ctx
    params.n_batch = args.n_batch
    params.n_ubatch = args.n_batch
    params.n_threads = args.threads
    params.n_threads_batch = args.threads
    # As engine/local/llama.py's flash_attention_type: automatic is off without GPU offload.
    automatic = (
        llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO
        if llama_cpp.llama_supports_gpu_offload()
        else llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    )
    params.flash_attn_type = {
        "auto": automatic,
        "on": llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED,
        "off": llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED,
    }[args.flash_attention]
    params.type_k = llama_cpp.GGML_TYPE_Q8_0 if keys == "q8_0" else llama_cpp.GGML_TYPE_F16
    params.no_perf = True
    return params


def _run(llama_cpp: Any, model: Any, ctx: Any, report: dict[str, Any]) -> int:
    """Evaluate one prompt batch as large as the context's batch, then generate a few tokens."""
    vocab = llama_cpp.llama_model_get_vocab(model)
    n_ctx = int(llama_cpp.llama_n_ctx(ctx))
    batch_size = max(1, min(int(llama_cpp.llama_n_batch(ctx)), n_ctx - GENERATED_TOKENS - 1))
    tokens = _prompt_tokens(llama_cpp, vocab, batch_size)
    if tokens is None:
        return _fail(EXIT_EVAL, "the model's vocabulary cannot tokenize text")
    started = time.perf_counter()
    # One prompt batch as large as the engine's: the matrix kernels that real prompts use.
    code = llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(tokens, batch_size))
    if code != 0:
        return _fail(EXIT_EVAL, f"evaluating {batch_size} tokens failed (code {code})")
    evaluated = time.perf_counter()
    # Then generation: one token at a time, as the engine samples them.
    sampler = llama_cpp.llama_sampler_init_greedy()
    try:
        token = (llama_cpp.llama_token * 1)()
        for _ in range(GENERATED_TOKENS):
            token[0] = llama_cpp.llama_sampler_sample(sampler, ctx, -1)
            code = llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(token, 1))
            if code != 0:
                return _fail(EXIT_EVAL, f"generating a token failed (code {code})")
    finally:
        llama_cpp.llama_sampler_free(sampler)
    report |= {
        "n_ctx": n_ctx,
        "batch_tokens": batch_size,
        "generated_tokens": GENERATED_TOKENS,
        "batch_seconds": round(evaluated - started, 3),
        "generate_seconds": round(time.perf_counter() - evaluated, 3),
    }
    return 0


def probe(args: argparse.Namespace) -> int:
    """Import llama_cpp, load the model, evaluate one full batch and generate a few tokens."""
    try:
        import llama_cpp
    except Exception as err:
        return _fail(EXIT_IMPORT, f"import llama_cpp failed: {type(err).__name__}: {err}")

    errors: list[str] = []

    def log(level: int, text: bytes, _user_data: Any) -> None:
        if level in (_LOG_WARN, _LOG_ERROR):
            line = text.decode("utf-8", "replace")
            sys.stderr.write(line)
            if level == _LOG_ERROR and line.strip():
                errors.append(line.strip())

    callback = llama_cpp.llama_log_callback(log)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    llama_cpp.llama_backend_init()

    started = time.perf_counter()
    model_params = llama_cpp.llama_model_default_params()
    model_params.use_mmap = not args.no_mmap
    model = llama_cpp.llama_model_load_from_file(args.model.encode(), model_params)
    if not model:
        reason = llama_reason(errors) or "llama.cpp gave no reason"
        return _fail(EXIT_LOAD, LOAD_FAILED + reason)
    keys = key_cache_type(
        args.key_cache,
        gpu=bool(llama_cpp.llama_supports_gpu_offload()),
        key_length=_key_length(llama_cpp, model),
    )
    ctx = llama_cpp.llama_init_from_model(model, _context_params(llama_cpp, args, keys))
    if not ctx:
        llama_cpp.llama_model_free(model)
        return _fail(EXIT_CONTEXT, "llama.cpp could not create a context (out of memory?)")
    try:
        description = ctypes.create_string_buffer(256)
        llama_cpp.llama_model_desc(model, description, len(description))
        report: dict[str, Any] = {
            "llama_cpp": getattr(llama_cpp, "__version__", None),
            "description": description.value.decode("utf-8", "replace"),
            "parameters": int(llama_cpp.llama_model_n_params(model)),
            "key_cache": keys,
            "load_seconds": round(time.perf_counter() - started, 3),
        }
        code = _run(llama_cpp, model, ctx, report)
        if code == 0:
            sys.stdout.write(json.dumps(report) + "\n")
        return code
    finally:
        llama_cpp.llama_free(ctx)
        llama_cpp.llama_model_free(model)


def main(argv: list[str]) -> int:
    """Run the probe with argv[1:]."""
    try:
        args = _parser().parse_args(argv[1:])
    except SystemExit:
        return EXIT_USAGE
    # On SIGSEGV/SIGILL/SIGBUS/SIGABRT write the Python stack to stderr, then die of the signal.
    # Without the C stack (a Python 3.14 option): its addresses would push the model's last messages
    # out of the tail the repair issue shows.
    faulthandler.enable(c_stack=False)
    return probe(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
