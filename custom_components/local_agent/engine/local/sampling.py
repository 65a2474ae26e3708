"""Token sampling: llama.cpp's sampler chain, plus a tool-call grammar switched on on demand.

The grammar constrains only the inside of a `<tool_call>` block: reasoning and plain answers
stay free. It is created fresh each time the model opens a call and dropped when it closes.
A structured answer (an AI task's structure) brings its own grammar instead, switched on when
the reasoning ends.
"""

from __future__ import annotations

from collections.abc import Sequence
import ctypes
import random
from typing import Any

from ..errors import GrammarError
from ..grammar import build_tool_call_grammar
from ..settings import SamplingSettings
from ..types import ToolSpec

# Generated tokens the presence penalty looks back over (a whole answer).
PENALTY_WINDOW = 512


class TokenSampler:
    """Samples one token at a time from the context's last logits."""

    def __init__(
        self,
        llama_cpp: Any,
        model: Any,
        settings: SamplingSettings,
        *,
        tools: Sequence[ToolSpec] = (),
        max_calls: int = 1,
        grammar: str | None = None,
    ) -> None:
        """Build the chain; build and check the grammar now, so a bad one fails early.

        grammar: a GBNF grammar to use instead of the tools' (a structured answer).
        """
        self._llama_cpp = llama_cpp
        self._model = model
        self._n_vocab: int = model.n_vocab()
        self._chain = self._build_chain(settings)
        custom_grammar = grammar is not None
        if grammar is None and tools:
            grammar = build_tool_call_grammar(tools, max_calls=max_calls)
        self._grammar_text = grammar
        self.has_call_grammar = grammar is not None and bool(tools) and not custom_grammar
        self._grammar: Any = None
        self._grammar_in_use = False
        self._candidates: Any = None
        self._single: Any = None
        if self._grammar_text is not None:
            try:
                self._grammar = self._new_grammar()
            except GrammarError:
                self.close()
                raise

    def _build_chain(self, settings: SamplingSettings) -> Any:
        llama_cpp = self._llama_cpp
        chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
        add = llama_cpp.llama_sampler_chain_add
        if settings.presence_penalty:
            add(
                chain,
                llama_cpp.llama_sampler_init_penalties(
                    self._n_vocab, PENALTY_WINDOW, 1.0, 0.0, settings.presence_penalty
                ),
            )
        if settings.greedy:
            add(chain, llama_cpp.llama_sampler_init_greedy())
            return chain
        if settings.top_k > 0:
            add(chain, llama_cpp.llama_sampler_init_top_k(settings.top_k))
        if settings.top_p < 1.0:
            add(chain, llama_cpp.llama_sampler_init_top_p(settings.top_p, 1))
        if settings.min_p > 0.0:
            add(chain, llama_cpp.llama_sampler_init_min_p(settings.min_p, 1))
        add(chain, llama_cpp.llama_sampler_init_temp(settings.temperature))
        seed = settings.seed if settings.seed is not None else random.getrandbits(32)
        add(chain, llama_cpp.llama_sampler_init_dist(seed))
        return chain

    def _new_grammar(self) -> Any:
        assert self._grammar_text is not None
        grammar = self._llama_cpp.llama_sampler_init_grammar(
            self._model.vocab, self._grammar_text.encode("utf-8"), b"root"
        )
        if not grammar:
            raise GrammarError("llama.cpp could not parse the grammar built for the answer")
        return grammar

    def sample(self, ctx: Any, *, grammar_wanted: bool) -> int:
        """Sample the next token; inside a tool call only what the grammar allows."""
        llama_cpp = self._llama_cpp
        use_grammar = grammar_wanted and self._grammar is not None
        if not use_grammar:
            if self._grammar_in_use:
                self._reset_grammar()
            token: int = llama_cpp.llama_sampler_sample(self._chain, ctx, -1)
            return token
        self._grammar_in_use = True
        # As llama.cpp's own sampler does: the chain picks from every token first, and only
        # when the grammar refuses the pick is the grammar applied to the whole vocabulary
        # (which costs a walk over each of its tokens) and the pick made again.
        pointer = ctypes.byref(self._fill_candidates(ctx))
        llama_cpp.llama_sampler_apply(self._chain, pointer)
        token = self._selected()
        if not self._grammar_allows(token):
            llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(self._fill_candidates(ctx)))
            llama_cpp.llama_sampler_apply(self._chain, pointer)
            token = self._selected()
        llama_cpp.llama_sampler_accept(self._grammar, token)
        llama_cpp.llama_sampler_accept(self._chain, token)
        return token

    def accept_forced(self, tokens: Sequence[int]) -> None:
        """Tell the chain about tokens the engine inserted itself (presence penalty history)."""
        for token in tokens:
            self._llama_cpp.llama_sampler_accept(self._chain, token)

    def accept_in_grammar(self, tokens: Sequence[int]) -> list[int]:
        """Accept the longest start of tokens that the call grammar allows; return it.

        Each token is checked against the grammar as it stands before it is accepted, so text
        the engine appends inside a call is exactly text the grammar allows.
        """
        if self._grammar is None:
            return []
        self._grammar_in_use = True
        accepted: list[int] = []
        for token in tokens:
            if not self._grammar_allows(token):
                break
            self._llama_cpp.llama_sampler_accept(self._grammar, token)
            self._llama_cpp.llama_sampler_accept(self._chain, token)
            accepted.append(token)
        return accepted

    def take(self, token: int, *, grammar_wanted: bool) -> bool:
        """Accept a token chosen for the model (a Steering's), as sample() would have.

        False, and nothing accepted, when the grammar is on and does not allow it.
        """
        if grammar_wanted and self._grammar is not None:
            return bool(self.accept_in_grammar([token]))
        if self._grammar_in_use:
            self._reset_grammar()
        self._llama_cpp.llama_sampler_accept(self._chain, token)
        return True

    def _grammar_allows(self, token: int) -> bool:
        import numpy as np

        llama_cpp = self._llama_cpp
        if self._single is None:
            dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
            self._single_data = np.recarray((1,), dtype=dtype)
            self._single = llama_cpp.llama_token_data_array(
                data=self._single_data.ctypes.data_as(llama_cpp.llama_token_data_p),
                size=1,
                selected=-1,
                sorted=False,
            )
        self._single_data.id[0] = token
        self._single_data.logit[0] = 0.0
        self._single_data.p[0] = 0.0
        self._single.size = 1
        self._single.selected = -1
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(self._single))
        return bool(np.isfinite(self._single_data.logit[0]))

    def _selected(self) -> int:
        return int(self._candidates_data.id[self._candidates.selected])

    def _reset_grammar(self) -> None:
        self._llama_cpp.llama_sampler_free(self._grammar)
        self._grammar = self._new_grammar()
        self._grammar_in_use = False

    def _fill_candidates(self, ctx: Any) -> Any:
        # numpy comes with llama-cpp-python: imported here, it is not needed by server mode.
        import numpy as np

        llama_cpp = self._llama_cpp
        if self._candidates is None:
            dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
            self._candidates_data = np.recarray((self._n_vocab,), dtype=dtype)
            self._token_ids = np.arange(self._n_vocab, dtype=np.intc)
            self._candidates = llama_cpp.llama_token_data_array(
                data=self._candidates_data.ctypes.data_as(llama_cpp.llama_token_data_p),
                size=self._n_vocab,
                selected=-1,
                sorted=False,
            )
        logits_pointer = llama_cpp.llama_get_logits_ith(ctx, -1)
        logits = np.ctypeslib.as_array(logits_pointer, shape=(self._n_vocab,))
        self._candidates_data.id[:] = self._token_ids
        self._candidates_data.logit[:] = logits
        self._candidates_data.p[:] = 0.0
        self._candidates.size = self._n_vocab
        self._candidates.selected = -1
        self._candidates.sorted = False
        return self._candidates

    def close(self) -> None:
        """Free the native samplers."""
        if self._grammar is not None:
            self._llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None
        if self._chain is not None:
            self._llama_cpp.llama_sampler_free(self._chain)
            self._chain = None
