"""Count tokens the way the engine does, with only a model's vocabulary loaded."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from custom_components.local_agent.engine.gguf_file import read_gguf_header


class Tokenizer:
    """A GGUF file's tokenizer (llama.cpp, vocab_only: no weights are loaded)."""

    def __init__(self, path: Path, label: str | None = None) -> None:
        """Load the vocabulary of the model at path."""
        import llama_cpp
        from llama_cpp import _internals

        self.path = path
        header = read_gguf_header(path)
        self.label = label or header.name or path.stem
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        # The model alone (no context): what the engine tokenizes with.
        self._model: Any = _internals.LlamaModel(path_model=str(path), params=params, verbose=False)
        self.n_vocab = int(self._model.n_vocab())

    def tokens(self, text: str, *, add_bos: bool = False) -> list[int]:
        """Return the token ids of text, special tokens parsed (as the engine does)."""
        if not text:
            return []
        return list(self._model.tokenize(text.encode("utf-8"), add_bos, True))

    def count(self, text: str, *, add_bos: bool) -> int:
        """Return the number of tokens of text, special tokens parsed (as the engine does)."""
        return len(self.tokens(text, add_bos=add_bos))

    def head(self, text: str, tokens: int) -> str:
        """Return the text of text's first `tokens` tokens."""
        pieces = self._model.tokenize(text.encode("utf-8"), False, True)[:tokens]
        return bytes(self._model.detokenize(pieces, True)).decode("utf-8", "replace")

    def count_prompt(self, static: str, dynamic: str) -> tuple[int, int]:
        """Return (static, dynamic) tokens of a split prompt, as the engine evaluates it."""
        static_tokens = self.count(static, add_bos=True)
        return static_tokens, self.count(dynamic, add_bos=not static_tokens)

    def special_counts(self, text: str, specials: Iterable[str]) -> Counter[int]:
        """Return how often text holds each of these special tokens (one token each)."""
        ids = {self.tokens(special)[0] for special in specials}
        return Counter(token for token in self.tokens(text) if token in ids)

    def close(self) -> None:
        """Free the vocabulary."""
        self._model.close()
