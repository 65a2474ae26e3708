"""Smoke tests proving the test models are real GGUF files that llama.cpp loads and runs."""

from collections.abc import Iterator
import itertools
from pathlib import Path

import llama_cpp
import pytest

from testing.model_files import QWEN35_CONTROL_TOKENS
from testing.model_files import QWEN35_DIMS
from testing.model_files import QWEN35_SPECIAL_TOKENS
from testing.model_files import QWEN35_USER_DEFINED_TOKENS
from testing.model_files import qwen35_chat_template
from testing.model_files import write_qwen35_test_model


@pytest.fixture(scope="module")
def qwen35(qwen35_model_path: Path) -> Iterator[llama_cpp.Llama]:
    llm = llama_cpp.Llama(model_path=str(qwen35_model_path), n_ctx=512, verbose=False)
    yield llm
    llm.close()


def _tokens(llm: llama_cpp.Llama, text: str, *, special: bool = True) -> list[int]:
    return list(llm.tokenize(text.encode(), add_bos=False, special=special))


def _greedy(llm: llama_cpp.Llama, prompt: list[int], n: int) -> list[int]:
    return list(itertools.islice(llm.generate(prompt, temp=0.0), n))


def test_qwen35_file_is_deterministic(qwen35_model_path: Path, tmp_path: Path) -> None:
    """Same generator version + template => same bytes (else bump QWEN35_GENERATOR_VERSION)."""
    fresh = tmp_path / qwen35_model_path.name
    write_qwen35_test_model(fresh, qwen35_chat_template())
    assert fresh.read_bytes() == qwen35_model_path.read_bytes()
    assert qwen35_model_path.stat().st_size < 2_000_000


def test_qwen35_metadata(qwen35: llama_cpp.Llama) -> None:
    meta = qwen35.metadata
    assert meta["general.architecture"] == "qwen35"
    assert meta["tokenizer.ggml.pre"] == "qwen35"
    assert meta["tokenizer.chat_template"] == qwen35_chat_template()
    assert int(meta["qwen35.block_count"]) == QWEN35_DIMS.n_layer
    assert int(meta["qwen35.full_attention_interval"]) == 2  # recurrent and attention layers
    assert qwen35.token_eos() == _tokens(qwen35, "<|im_end|>")[0]
    assert 256 + len(QWEN35_SPECIAL_TOKENS) < qwen35.n_vocab() <= 2000


def test_qwen35_special_tokens_are_single_tokens(qwen35: llama_cpp.Llama) -> None:
    ids = _tokens(qwen35, "<|im_start|>user\nhello<|im_end|>")
    pieces = [qwen35.detokenize([i], special=True).decode() for i in ids]
    assert pieces == ["<|im_start|>", "user", "\n", "hello", "<|im_end|>"]
    for token in QWEN35_SPECIAL_TOKENS:
        assert len(_tokens(qwen35, token)) == 1, token


def test_qwen35_tags_are_user_defined(qwen35: llama_cpp.Llama) -> None:
    """Think/tool tags are single tokens even when special tokens are not parsed."""
    for token in QWEN35_USER_DEFINED_TOKENS:
        assert len(_tokens(qwen35, f"a{token}b", special=False)) == 3, token
    for token in QWEN35_CONTROL_TOKENS:
        assert len(_tokens(qwen35, token, special=False)) > 1, token


def test_qwen35_tokenizes_any_text(qwen35: llama_cpp.Llama) -> None:
    text = 'Température 21 °C 🙂 — {"entity_id": "light.kitchen"}\n\t<parameter=x>'
    ids = _tokens(qwen35, text, special=False)
    assert qwen35.detokenize(ids).decode() == text
    assert len(_tokens(qwen35, " kitchen light", special=False)) == 2  # merges are real


def test_qwen35_greedy_output_depends_on_context(qwen35: llama_cpp.Llama) -> None:
    first = _tokens(qwen35, "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n")
    second = _tokens(qwen35, "<|im_start|>user\nTurn on the light<|im_end|>\n")
    out_first = _greedy(qwen35, first, 8)
    out_second = _greedy(qwen35, second, 8)
    assert len(out_first) == len(out_second) == 8
    assert out_first != out_second
    assert _greedy(qwen35, first, 8) == out_first  # deterministic


def test_gemma_generates_real_text(gemma_model_path: Path) -> None:
    llm = llama_cpp.Llama(model_path=str(gemma_model_path), n_ctx=512, verbose=False)
    try:
        prompt = list(llm.tokenize(b"1, 2, 3, 4,", add_bos=True))
        text = llm.detokenize(_greedy(llm, prompt, 6)).decode()
    finally:
        llm.close()
    assert text.startswith(" 5, 6")
