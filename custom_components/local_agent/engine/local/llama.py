"""A model loaded in this process with llama.cpp: evaluate prompts with prefix checkpoints, sample.

Everything here blocks and is confined to one worker thread per loaded model (see worker.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Sequence
import ctypes
from dataclasses import dataclass
from dataclasses import replace
import logging
from pathlib import Path
import threading
import time
from time import monotonic
from typing import Any

import psutil

from ..call_forcing import CallForcing
from ..chat_format import ChatTemplate
from ..chat_format import ChatTemplateError
from ..chat_format import PromptParts
from ..chat_format import load_template
from ..chat_format import next_turn_start
from ..errors import ContextTooSmallError
from ..errors import EngineError
from ..errors import EngineOutOfMemoryError
from ..errors import GenerationCancelledError
from ..errors import UnsupportedArchitectureError
from ..generation import MAX_CALLS_PER_ANSWER
from ..generation import AnswerEnd
from ..generation import AnswerProgress
from ..generation import GenerationOutput
from ..generation import GenerationRequest
from ..generation import GenerationStats
from ..generation import ModelInfo
from ..generation import Steering
from ..generation import reasoning_ended
from ..generation import render_request
from ..gguf_file import GgufHeader
from ..gguf_file import read_gguf_header
from ..markup import CALL_OPEN
from ..markup import REASONING_CLOSE
from ..markup import THINK_CLOSE
from ..settings import EngineSettings
from ..structure import build_structure_grammar
from ..tool_calls import ParseEvent
from ..tool_calls import ToolCallStreamParser
from ..types import Conversation
from ..types import ToolSpec
from .context_size import automatic_context_size
from .context_size import key_length
from .context_size import kv_bytes_per_token
from .prefix_store import PrefixStore
from .prefix_store import SaveCancelled
from .prefix_store import SavedPrefix
from .prefix_store import prefix_key
from .probe import key_cache_type
from .sampling import TokenSampler

_LOGGER = logging.getLogger(__name__)

# Tokens kept free for the answer when checking that a prompt fits.
MIN_ANSWER_TOKENS = 64
# Recent output kept to spot tags and stop strings that span tokens.
TAIL_CHARS = 32
# Batches at least this long are evaluated with llama.cpp's abort callback installed, so that a
# cancel stops a long prompt mid-batch. The callback is Python: ggml calls it after every graph
# node, holding up the other compute threads while it takes the GIL, which would cost several
# percent per generated token. Shorter batches (the answer, token by token) run without it and
# are cancelled between tokens instead.
ABORTABLE_BATCH = 32
# Batch length of background evaluation (prepare): never aborted mid-batch, which would leave
# the context unusable and drop every checkpoint, so a request that preempts it waits for at
# most one such batch.
BACKGROUND_BATCH = 16
# Batch length of warming an agent's prefix up (thousands of tokens): short batches cost
# several times more per token (twin Q4_K_M, 2 threads, a busy machine: 3 tok/s in batches of
# 16, 7 in 64, 20 in 512), and a command arriving meanwhile mostly needs that very prefix, so
# warming takes longer batches; another request waits for at most one of them.
WARM_BATCH = 128

# Seconds between two prefixes saved to disk by one loaded model. A home whose states keep
# changing has its list taken again in the background every few minutes (turn/agent.py), and
# each save writes the whole sequence state (about 95 MB at 200 entities, 270 MB at 1000): an
# SD card must not take that every few minutes. The prefix held then is saved once this has
# passed (each minute's preparation tries again); a restart before that evaluates it anew.
PREFIX_SAVE_INTERVAL = 3600.0

# Characters of a Steering's text tokenized for its next token: its first token depends only
# on the first pre-tokenizer piece, and a scripted answer is hundreds of tokens long.
STEERING_LOOKAHEAD = 256


_NATIVE_LOGGER = logging.getLogger(f"{__name__}.native")
_NATIVE_LEVELS = {1: logging.DEBUG, 2: logging.DEBUG, 3: logging.WARNING, 4: logging.ERROR}
_native_log_callback: Any = None
_NO_ABORT_CALLBACK: Any = None
# The cancel event of the abortable decode this thread runs: llama.cpp reports a batch we
# aborted ourselves as a failed graph, which is no error of anyone's (logged at debug level).
_DECODING = threading.local()


def _import_llama_cpp() -> tuple[Any, Any]:
    """Import llama_cpp on first use and route llama.cpp's own log lines to our logger."""
    global _native_log_callback, _NO_ABORT_CALLBACK  # noqa: PLW0603 - outlive every model
    import llama_cpp
    from llama_cpp import _internals

    if _NO_ABORT_CALLBACK is None:
        _NO_ABORT_CALLBACK = llama_cpp.ggml_abort_callback(0)

    if _native_log_callback is None:

        def forward(level: int, text: bytes, _user_data: Any) -> None:
            log_level = _NATIVE_LEVELS.get(level, logging.DEBUG)
            cancel: threading.Event | None = getattr(_DECODING, "cancel", None)
            if cancel is not None and cancel.is_set():
                log_level = logging.DEBUG
            if _NATIVE_LOGGER.isEnabledFor(log_level):
                _NATIVE_LOGGER.log(log_level, "%s", text.decode("utf-8", "replace").rstrip())

        _native_log_callback = llama_cpp.llama_log_callback(forward)
        llama_cpp.llama_log_set(_native_log_callback, ctypes.c_void_p(0))
    return llama_cpp, _internals


@dataclass(slots=True)
class CheckpointStats:
    """What the prefix checkpoints hold and how they served, for diagnostics and benchmarks."""

    count: int = 0
    bytes: int = 0
    limit_bytes: int = 0
    largest_bytes: int = 0
    saved: int = 0
    restored: int = 0
    evicted: int = 0
    dropped: int = 0


class _Checkpoints:
    """Recurrent states saved after prompt prefixes, bounded in bytes, least recently used first.

    A checkpoint holds only what the live context cannot give back: the recurrent part of the
    sequence state (llama.cpp's partial-only state; for a pure-attention model next to
    nothing). The attention KV of the prefix stays in the live context, which can be cut back
    to any length, so a checkpoint is usable only while the live context still holds its
    prefix; those it no longer holds are dropped at once.
    """

    def __init__(self, limit_bytes: int) -> None:
        self._limit = max(limit_bytes, 0)
        self._states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self._bytes = 0
        self.stats = CheckpointStats(limit_bytes=self._limit)

    def longest_prefix_of(self, prompt: Sequence[int], held: int) -> tuple[int, bytes] | None:
        """Return the longest checkpoint that is a strict prefix of prompt, at most held long."""
        best: tuple[int, ...] | None = None
        for tokens in self._states:
            longer = best is None or len(tokens) > len(best)
            fits = len(tokens) <= held and len(tokens) < len(prompt)
            if longer and fits and tuple(prompt[: len(tokens)]) == tokens:
                best = tokens
        if best is None:
            return None
        self._states.move_to_end(best)
        return len(best), self._states[best]

    def __contains__(self, tokens: tuple[int, ...]) -> bool:
        return tokens in self._states

    def state_of(self, tokens: tuple[int, ...]) -> bytes | None:
        return self._states.get(tokens)

    def put(self, tokens: tuple[int, ...], state: bytes) -> None:
        if len(state) > self._limit:
            return
        self._remove(tokens)
        self._states[tokens] = state
        self._bytes += len(state)
        self.stats.saved += 1
        self.stats.largest_bytes = max(self.stats.largest_bytes, len(state))
        while self._bytes > self._limit:
            self._remove(next(iter(self._states)))
            self.stats.evicted += 1

    def keep_held(self, live: Sequence[int]) -> None:
        """Drop the checkpoints whose prefix the live context no longer holds."""
        for tokens in list(self._states):
            if len(tokens) > len(live) or tuple(live[: len(tokens)]) != tokens:
                self._remove(tokens)
                self.stats.dropped += 1

    def _remove(self, tokens: tuple[int, ...]) -> None:
        state = self._states.pop(tokens, None)
        if state is not None:
            self._bytes -= len(state)

    @property
    def count(self) -> int:
        return len(self._states)

    @property
    def total_bytes(self) -> int:
        return self._bytes

    def snapshot(self) -> CheckpointStats:
        return replace(self.stats, count=len(self._states), bytes=self._bytes)

    def clear(self) -> None:
        self._states.clear()
        self._bytes = 0


class PrefixProgress:
    """How far a background evaluation has come, and how fast it goes (read by the agent)."""

    def __init__(self) -> None:
        """Nothing evaluated yet."""
        self.total = 0
        self.held = 0
        self._first: tuple[float, int] | None = None
        self._last: tuple[float, int] | None = None

    def start(self, total: int, held: int) -> None:
        """Begin: the prompt has total tokens, of which the context already holds held."""
        self.total, self.held = total, held
        self._first = self._last = (time.perf_counter(), held)

    def note(self, held: int) -> None:
        """Note that the context now holds this many tokens of the prompt."""
        self.held = held
        self._last = (time.perf_counter(), held)

    @property
    def seconds_left(self) -> float | None:
        """Estimated seconds until the prompt is evaluated; None before a batch was timed."""
        if self._first is None or self._last is None or self._last[1] <= self._first[1]:
            return None
        rate = (self._last[0] - self._first[0]) / (self._last[1] - self._first[1])
        return max(self.total - self.held, 0) * rate


def shared_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    """Return how many tokens two token lists start with alike.

    Halves compared as slices (C loops): a Python loop over a 20,000-token home list took
    4-6 ms of a command's time to its first token.
    """
    low, high = 0, min(len(first), len(second))
    if first[:high] == second[:high]:
        return high
    # The first `low` tokens are alike, the first `high` are not.
    while high - low > 1:
        middle = (low + high) // 2
        if first[low:middle] == second[low:middle]:
            low = middle
        else:
            high = middle
    return low


def flash_attention_type(llama_cpp: Any, wanted: bool | None) -> int:
    """Return llama.cpp's flash-attention switch for the setting (None: automatic).

    Automatic means off without GPU offload: llama.cpp's own "auto" turns its CPU
    kernel on, which evaluates batches under 64 tokens and each generated token several times
    slower once the context is long (twin Q4_K_M, 10k-token context, 1 thread: 62 vs 11 ms per
    token in a 42-token batch, 82 vs 40 ms per generated token), and a turn's new tokens come
    in exactly such batches.
    """
    if wanted is None:
        if llama_cpp.llama_supports_gpu_offload():
            return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO)
        return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)
    if wanted:
        return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED)
    return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)


class LoadedModel:
    """A loaded model with one context. Not thread-safe: one generation at a time."""

    # What the model is made to write (generation.Steering): tests and benchmarks only.
    steering: Steering | None = None

    def __init__(self, path: Path, settings: EngineSettings) -> None:
        """Load the model and create its context. Blocking; raises EngineError subclasses."""
        self.path = path
        self.settings = settings
        header = read_gguf_header(path)
        self._check_memory(path)
        self._llama_cpp, internals = _import_llama_cpp()
        llama_cpp = self._llama_cpp
        self._cancel = threading.Event()
        self._abort_callback = llama_cpp.ggml_abort_callback(lambda _data: self._cancel.is_set())

        model_params = llama_cpp.llama_model_default_params()
        model_params.use_mmap = settings.use_mmap
        try:
            self._model = internals.LlamaModel(
                path_model=str(path), params=model_params, verbose=False
            )
        except ValueError as err:
            raise UnsupportedArchitectureError(path, header.architecture) from err

        self._internals = internals
        self._flash_type = flash_attention_type(llama_cpp, settings.flash_attention)
        metadata = self._model.metadata()
        self.key_cache = key_cache_type(
            settings.key_cache,
            gpu=bool(llama_cpp.llama_supports_gpu_offload()),
            key_length=key_length(metadata),
        )
        try:
            self._ctx = self._new_context(settings.initial_n_ctx)
        except EngineOutOfMemoryError:
            self._model.close()
            raise
        self._batch = internals.LlamaBatch(n_tokens=settings.n_batch, embd=0, n_seq_max=1)
        self._vocab = self._model.vocab
        self._piece_buffer = ctypes.create_string_buffer(64)
        self._n_vocab = self._model.n_vocab()
        self._tokens: list[int] = []
        self._static_tokens: tuple[str, list[int]] | None = None
        self._checkpoints = _Checkpoints(settings.checkpoint_memory)
        self._kv_bytes_per_token = kv_bytes_per_token(metadata, self.key_cache)
        self._store = self._prefix_store(path, header)
        # Prefix keys and whether the disk holds them (as checked or saved in this process).
        self._on_disk: dict[str, bool] = {}
        self._static_key: str | None = None
        self._last_saved: float | None = None
        self.info = self._describe(header)
        try:
            # The model's own chat template, else the bundled Qwen3.5 one.
            self.chat_template: ChatTemplate = load_template(self.info.metadata)
        except ChatTemplateError:
            self.close()
            raise
        _LOGGER.debug("Loaded %s (%s)", path.name, self.info.architecture)

    def _new_context(self, n_ctx: int) -> Any:
        llama_cpp, settings = self._llama_cpp, self.settings
        ctx_params = llama_cpp.llama_context_default_params()
        ctx_params.n_ctx = n_ctx
        ctx_params.n_batch = settings.n_batch
        ctx_params.n_ubatch = settings.n_batch
        ctx_params.n_threads = settings.threads
        ctx_params.n_threads_batch = settings.threads
        ctx_params.flash_attn_type = self._flash_type
        ctx_params.type_k = (
            llama_cpp.GGML_TYPE_Q8_0 if self.key_cache == "q8_0" else llama_cpp.GGML_TYPE_F16
        )
        ctx_params.abort_callback = self._abort_callback
        self._abort_installed = True
        ctx_params.no_perf = True
        try:
            return self._internals.LlamaContext(model=self._model, params=ctx_params, verbose=False)
        except ValueError as err:
            raise EngineOutOfMemoryError(f"creating a context of {n_ctx} tokens") from err

    def _prefix_store(self, path: Path, header: GgufHeader) -> PrefixStore | None:
        """Return the folder of saved prefixes for this very file, runtime and state layout."""
        directory = self.settings.prefix_store
        if directory is None:
            return None
        stat = path.stat()
        identity = "|".join(
            (
                str(path.resolve()),
                str(stat.st_size),
                str(stat.st_mtime_ns),
                str(header.architecture),
                f"llama-cpp-python {getattr(self._llama_cpp, '__version__', '?')}",
                f"state {self._llama_cpp.LLAMA_STATE_SEQ_VERSION}",
                f"flash attention {self._flash_type}",
                f"keys {self.key_cache}",
            )
        )
        return PrefixStore(directory, identity, self.settings.prefix_store_bytes)

    def _ensure_context(self, needed: int) -> None:
        """With an automatic context size, grow the context to hold `needed` tokens.

        What the old context held is carried over (its sequence state, set into the new one),
        so the checkpoints stay usable and nothing is evaluated again.
        """
        if not self.settings.automatic_context or needed <= self._ctx.n_ctx():
            return
        available = psutil.virtual_memory().available
        size = automatic_context_size(
            needed,
            bytes_per_token=self._kv_bytes_per_token,
            available=available + self._ctx.n_ctx() * self._kv_bytes_per_token,
            trained=self._model.n_ctx_train(),
        )
        if size <= self._ctx.n_ctx():
            return
        _LOGGER.info("Growing the context of %s to %d tokens", self.path.name, size)
        held = self._sequence_state() if self._tokens else None
        self._ctx.close()
        self._ctx = self._new_context(size)
        self.info = replace(self.info, n_ctx=size)
        flags = self._llama_cpp.LLAMA_STATE_SEQ_FLAGS_NONE
        if held is None or not self._llama_cpp.llama_state_seq_set_data_ext(
            self._ctx.ctx, held, len(held), 0, flags
        ):
            self._tokens = []
            self._checkpoints.clear()

    @staticmethod
    def _check_memory(path: Path) -> None:
        needed = path.stat().st_size
        available = psutil.virtual_memory().available
        if needed > available:
            raise EngineOutOfMemoryError(
                f"loading {path.name} ({needed / 2**20:.0f} MiB; {available / 2**20:.0f} MiB free)"
            )

    def _describe(self, header: GgufHeader) -> ModelInfo:
        metadata = self._model.metadata()
        return ModelInfo(
            path=self.path,
            architecture=header.architecture or metadata.get("general.architecture"),
            # As people name it: "Gemma 3 270M Q4_K_M" (name, size, quantization).
            name=header.title() or metadata.get("general.name"),
            size_bytes=self._model.size(),
            parameters=self._model.n_params(),
            n_ctx=self._ctx.n_ctx(),
            n_ctx_train=self._model.n_ctx_train(),
            n_vocab=self._n_vocab,
            chat_template=metadata.get("tokenizer.chat_template"),
            metadata=metadata,
            key_cache=self.key_cache,
        )

    # Tokens ---------------------------------------------------------------------------------

    def tokenize(self, text: str, *, add_bos: bool) -> list[int]:
        """Tokenize text, parsing special tokens such as <|im_start|>."""
        if not text:
            return []
        tokens: list[int] = self._model.tokenize(text.encode("utf-8"), add_bos, True)
        return tokens

    def token_piece(self, token: int) -> bytes:
        """Bytes of one token, special tokens rendered as their text."""
        size = len(self._piece_buffer)
        length = self._llama_cpp.llama_token_to_piece(
            self._vocab, token, self._piece_buffer, size, 0, True
        )
        if length < 0:
            self._piece_buffer = ctypes.create_string_buffer(-length)
            return self.token_piece(token)
        return self._piece_buffer.raw[:length]

    def token_pieces(self, text: str) -> list[bytes]:
        """Return the bytes of each token of text, tokenized on its own."""
        return [self.token_piece(token) for token in self.tokenize(text, add_bos=False)]

    def is_end_of_generation(self, token: int) -> bool:
        """Whether the token ends a turn."""
        return bool(self._llama_cpp.llama_vocab_is_eog(self._vocab, token))

    # Cache ----------------------------------------------------------------------------------

    @property
    def checkpoint_bytes(self) -> int:
        """Memory held by prefix checkpoints."""
        return self._checkpoints.total_bytes

    @property
    def checkpoint_stats(self) -> CheckpointStats:
        """Checkpoint figures: held, bytes against the limit, saved, restored, evicted."""
        return self._checkpoints.snapshot()

    def reset_cache(self) -> None:
        """Forget the context and every checkpoint."""
        self._ctx.kv_cache_clear()
        self._tokens = []
        self._checkpoints.clear()

    def _save_state(self) -> bytes:
        """Save the recurrent part of the sequence (what cannot be cut back or kept live)."""
        llama_cpp = self._llama_cpp
        flags = llama_cpp.LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY
        size = llama_cpp.llama_state_seq_get_size_ext(self._ctx.ctx, 0, flags)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data_ext(self._ctx.ctx, buffer, size, 0, flags)
        # One memcpy: slicing a c_uint8 array would build a list of Python ints first.
        return ctypes.string_at(buffer, written)

    def _restore_state(self, state: bytes, length: int) -> bool:
        """Bring the context back to `length` tokens: saved recurrent state, attention cut."""
        llama_cpp = self._llama_cpp
        flags = llama_cpp.LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if not llama_cpp.llama_state_seq_set_data_ext(self._ctx.ctx, buffer, len(state), 0, flags):
            return False
        return bool(self._ctx.kv_cache_seq_rm(0, length, -1))

    def _sequence_state(self) -> Any:
        """Return the whole sequence (attention cache and recurrent state) as a ctypes buffer."""
        llama_cpp, flags = self._llama_cpp, self._llama_cpp.LLAMA_STATE_SEQ_FLAGS_NONE
        size = llama_cpp.llama_state_seq_get_size_ext(self._ctx.ctx, 0, flags)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data_ext(self._ctx.ctx, buffer, size, 0, flags)
        return (ctypes.c_uint8 * written).from_buffer(buffer)

    def _restore_saved(self, saved: SavedPrefix) -> bool:
        """Make the context hold the saved prefix: the sequence, cut back to the prefix."""
        llama_cpp, flags = self._llama_cpp, self._llama_cpp.LLAMA_STATE_SEQ_FLAGS_NONE
        self._ctx.kv_cache_clear()
        self._tokens = []
        sequence = (ctypes.c_uint8 * len(saved.sequence_state)).from_buffer(saved.sequence_state)
        if not llama_cpp.llama_state_seq_set_data_ext(
            self._ctx.ctx, sequence, len(sequence), 0, flags
        ):
            self._ctx.kv_cache_clear()
            return False
        if not self._restore_state(bytes(saved.prefix_state), len(saved.tokens)):
            self._ctx.kv_cache_clear()
            return False
        self._tokens = list(saved.tokens)
        return True

    def _load_prefix(self, static: list[int], key: str, stats: GenerationStats) -> None:
        """Restore the static prefix from disk, if saved and the context holds less of it."""
        if (
            self._store is None
            or len(self._tokens) >= len(static)
            or self._on_disk.get(key) is False
        ):
            return
        saved = self._store.load(key, static)
        if saved is None or not self._restore_saved(saved):
            self._on_disk[key] = False
            return
        self._on_disk[key] = True
        self._checkpoints.keep_held(self._tokens)
        self._checkpoints.put(tuple(static), bytes(saved.prefix_state))
        stats.cached_tokens = len(static)
        stats.prefix_from_disk = True

    def save_prefix(self, cancel: threading.Event) -> Path | None:
        """Save the static prefix the context holds to disk, unless it is saved already.

        Done between requests (blocking, in pieces: a cancel stops it and keeps nothing), at
        most once per PREFIX_SAVE_INTERVAL.
        """
        key, static = self._static_key, self._static_tokens
        if self._store is None or key is None or static is None or self._on_disk.get(key):
            return None
        tokens = static[1]
        checkpoint = self._checkpoints.state_of(tuple(tokens))
        if checkpoint is None or self._tokens[: len(tokens)] != tokens:
            return None
        if key not in self._on_disk and self._store.has(key):
            self._on_disk[key] = True
            return None
        saved_at = self._last_saved
        if saved_at is not None and monotonic() - saved_at < PREFIX_SAVE_INTERVAL:
            return None
        sequence = self._sequence_state()
        try:
            path = self._store.save(
                key, tokens, memoryview(sequence).cast("B"), checkpoint, cancel.is_set
            )
        except SaveCancelled:
            return None
        except OSError as err:
            _LOGGER.warning(
                "Could not save the evaluated prefix to %s: %s", self._store.directory, err
            )
            self._on_disk[key] = True  # do not try again in this process
            return None
        self._on_disk[key] = path is not None
        if path is not None:
            self._last_saved = monotonic()
        return path

    def _reuse_context(self, prompt: list[int], stats: GenerationStats) -> int:
        """Bring the context to a prefix of prompt; return how many tokens are already there.

        The live context is reused as it is for an exact append. Otherwise it is cut back: a
        pure-attention model cuts its cache anywhere; a hybrid (recurrent) model cannot cut its
        recurrent state, so the longest checkpoint within the shared prefix restores that part
        and the attention cache is cut to the same length.
        """
        cached = self._tokens
        if cached and len(cached) < len(prompt) and prompt[: len(cached)] == cached:
            return len(cached)
        common = min(shared_prefix_length(cached, prompt), len(prompt) - 1)
        checkpoint = self._checkpoints.longest_prefix_of(prompt, common)
        checkpoint_length = checkpoint[0] if checkpoint else 0
        if common > checkpoint_length and self._ctx.kv_cache_seq_rm(0, common, -1):
            self._tokens = cached[:common]
        elif checkpoint is not None and self._restore_state(checkpoint[1], checkpoint_length):
            self._tokens = list(prompt[:checkpoint_length])
            stats.checkpoint_restored = True
            self._checkpoints.stats.restored += 1
        else:
            self._ctx.kv_cache_clear()
            self._tokens = []
        self._checkpoints.keep_held(self._tokens)
        return len(self._tokens)

    # Evaluation -----------------------------------------------------------------------------

    def _install_abort(self, wanted: bool) -> None:
        if wanted != self._abort_installed:
            callback = self._abort_callback if wanted else _NO_ABORT_CALLBACK
            self._llama_cpp.llama_set_abort_callback(self._ctx.ctx, callback, None)
            self._abort_installed = wanted

    def _decode(
        self,
        tokens: Sequence[int],
        *,
        background: bool = False,
        batch: int | None = None,
        progress: PrefixProgress | None = None,
    ) -> None:
        """Evaluate tokens after the current context, in batches; logits of the last remain.

        In the background, batches are short and never aborted: a cancel stops between two of
        them and leaves the context and the checkpoints usable. In the foreground a long batch
        may be aborted inside llama.cpp, which leaves its recurrent state half-written; a long
        evaluation (several batches: a home list) keeps that state before each of them, so an
        abort goes back to the last whole batch instead of losing the whole prompt: a turn
        stopped at its time limit leaves the next one (or the warm-up) to go on from there.
        """
        step = (batch or BACKGROUND_BATCH) if background else self.settings.n_batch
        keeps_progress = len(tokens) > step
        for start in range(0, len(tokens), step):
            if progress is not None:
                progress.note(len(self._tokens))
            if self._cancel.is_set():
                raise GenerationCancelledError
            chunk = tokens[start : start + step]
            abortable = not background and len(chunk) >= ABORTABLE_BATCH
            self._install_abort(abortable)
            before = self._save_state() if abortable and keeps_progress and self._tokens else None
            self._batch.set_batch(chunk, n_past=len(self._tokens), logits_all=False)
            _DECODING.cancel = self._cancel if abortable else None
            try:
                code = self._llama_cpp.llama_decode(self._ctx.ctx, self._batch.batch)
            finally:
                _DECODING.cancel = None
            if code == 2:
                if before is None or not self._restore_state(before, len(self._tokens)):
                    self._forget_context("")
                raise GenerationCancelledError
            if code == 1:
                raise ContextTooSmallError(len(self._tokens) + len(chunk), self._ctx.n_ctx(), 0)
            if code != 0:
                raise EngineOutOfMemoryError(f"evaluating {len(chunk)} tokens (code {code})")
            self._tokens.extend(chunk)
        if progress is not None:
            progress.note(len(self._tokens))

    def _holds_static(self, text: str) -> bool:
        """Whether the context holds this static prompt (the last one tokenized, not another's)."""
        cached = self._static_tokens
        return (
            cached is not None and cached[0] == text and self._tokens[: len(cached[1])] == cached[1]
        )

    def _tokenize_static(self, text: str) -> list[int]:
        """Tokenize the static prompt, once per text: it holds the whole home list."""
        if self._static_tokens is None or self._static_tokens[0] != text:
            self._static_tokens = (text, self.tokenize(text, add_bos=True))
        return list(self._static_tokens[1])

    def evaluate_prompt(
        self,
        static_prompt: str,
        dynamic_prompt: str,
        checkpoint_at: int | None = None,
        *,
        background: bool = False,
        batch: int | None = None,
        room: int = MIN_ANSWER_TOKENS,
        progress: PrefixProgress | None = None,
    ) -> GenerationStats:
        """Make the context hold static + dynamic prompt, reusing what it can.

        Checkpoints are saved after the static prompt, in the background after
        dynamic_prompt[:checkpoint_at] (where the next request of the conversation goes on:
        the end of the last message) and, if the settings ask, after the whole prompt. A
        request evaluates its new tokens in one pass: a checkpoint inside them would cost
        another pass over the weights and a copy of the state (60-70 ms on 2 cores) before
        the first token, and the next turn's preparation takes it from the last one it holds.
        room: tokens wanted after the prompt (an automatic context grows to hold them;
        MIN_ANSWER_TOKENS must fit).
        """
        stats = GenerationStats()
        static = self._tokenize_static(static_prompt)
        self._static_key = key = prefix_key(static_prompt)
        cut = len(dynamic_prompt) if checkpoint_at is None else checkpoint_at
        # Tokenized in two pieces so that the next request, which renders the same text up to
        # the cut and goes on differently, tokenizes that part the same way.
        stable = static + self.tokenize(dynamic_prompt[:cut], add_bos=not static)
        prompt = stable + self.tokenize(dynamic_prompt[cut:], add_bos=not stable)
        stats.prompt_tokens = len(prompt)
        self._ensure_context(len(prompt) + max(room, MIN_ANSWER_TOKENS))
        n_ctx = self._ctx.n_ctx()
        if len(prompt) + MIN_ANSWER_TOKENS > n_ctx:
            raise ContextTooSmallError(len(prompt), n_ctx, MIN_ANSWER_TOKENS)
        started = time.perf_counter()
        reused = self._reuse_context(prompt, stats)
        stats.cached_tokens = reused
        self._load_prefix(static, key, stats)
        if progress is not None:
            progress.start(len(prompt), len(self._tokens))
        stops = {len(static), len(stable)} if background else {len(static)}
        if self.settings.checkpoint_full_prompt:
            stops.add(len(prompt))
        for stop in sorted(stops):
            if stop <= len(self._tokens) or stop == 0:
                continue
            self._decode(
                prompt[len(self._tokens) : stop],
                background=background,
                batch=batch,
                progress=progress,
            )
            if tuple(prompt[:stop]) not in self._checkpoints:
                self._checkpoints.put(tuple(prompt[:stop]), self._save_state())
        self._decode(
            prompt[len(self._tokens) :], background=background, batch=batch, progress=progress
        )
        stats.evaluated_tokens = len(prompt) - stats.cached_tokens
        stats.prompt_seconds = time.perf_counter() - started
        return stats

    def render(self, request: GenerationRequest) -> PromptParts:
        """Return the request's prompt as text, rendered with the model's chat template."""
        return render_request(self.chat_template, request)

    def prepare(
        self,
        conversation: Conversation,
        tools: Sequence[ToolSpec],
        cancel: threading.Event,
        *,
        room: int = MIN_ANSWER_TOKENS,
        batch: int = BACKGROUND_BATCH,
        progress: PrefixProgress | None = None,
        held_prefix_only: bool = False,
    ) -> GenerationStats | None:
        """Evaluate the text the conversation's next turn will start with, and keep a checkpoint.

        Run between requests (the next turn of a conversation goes on from there); a cancel
        stops it between two short batches, with the context still usable. A conversation
        without messages is an agent's start: its system text and tools, the prefix every
        turn shares (warming up after a load or a change of the home), restored from disk
        when it was saved. room: tokens its turns need after it (history and answers).
        held_prefix_only: nothing is done unless the context holds this conversation's prefix
        (agents sharing a model do not evaluate each other's away between their turns).
        """
        self._cancel = cancel
        start = next_turn_start(self.chat_template, conversation, tools)
        if start is None:
            return None
        if held_prefix_only and not self._holds_static(start.static):
            return None
        try:
            return self.evaluate_prompt(
                start.static,
                start.dynamic,
                len(start.dynamic) if start.stable_end is None else start.stable_end,
                background=True,
                batch=batch,
                room=room,
                progress=progress,
            )
        except EngineError:
            raise
        except Exception as err:
            raise self._forget_context(f"llama.cpp failed evaluating a prompt: {err}") from err

    def warm(
        self,
        conversation: Conversation,
        tools: Sequence[ToolSpec],
        cancel: threading.Event,
        *,
        room: int,
        progress: PrefixProgress | None = None,
        held_prefix_only: bool = False,
    ) -> None:
        """Make the context hold an agent's prefix (from disk if saved), then save it there."""
        batch = WARM_BATCH if not conversation.messages else BACKGROUND_BATCH
        self.prepare(
            conversation,
            tools,
            cancel,
            room=room,
            batch=batch,
            progress=progress,
            held_prefix_only=held_prefix_only,
        )
        self.save_prefix(cancel)

    # Generation -----------------------------------------------------------------------------

    def generate(
        self,
        request: GenerationRequest,
        cancel: threading.Event | None = None,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Evaluate the prompt and sample until the turn ends; stream parse events."""
        self._cancel = cancel or threading.Event()
        # A request cancelled while it waited in the queue leaves the context as it is.
        self.check_cancelled()
        try:
            return self._generate(request, on_event)
        except EngineError:
            # A cancel leaves the context as the last whole batch left it (_decode).
            raise
        except Exception as err:
            raise self._forget_context(f"llama.cpp failed during generation: {err}") from err

    def _forget_context(self, message: str) -> EngineError:
        """Empty the context (its state is unknown); return the error to raise."""
        self._tokens = []
        self._ctx.kv_cache_clear()
        return EngineError(message)

    def _generate(
        self, request: GenerationRequest, on_event: Callable[[ParseEvent], None] | None
    ) -> GenerationOutput:
        # Built first, so that a grammar llama.cpp rejects fails before any evaluation.
        sampler = TokenSampler(
            self._llama_cpp,
            self._model,
            request.sampling,
            tools=request.tools if request.constrain_tool_calls else (),
            max_calls=MAX_CALLS_PER_ANSWER,
            grammar=(
                build_structure_grammar(request.answer_schema)
                if request.answer_schema is not None
                else None
            ),
        )
        try:
            parts = self.render(request)
            room = request.max_tokens + (request.thinking_budget or 0)
            stats = self.evaluate_prompt(parts.static, parts.dynamic, parts.stable_end, room=room)
            turn = _Turn(self, request, parts, stats, sampler, on_event)
            turn.run(request.max_tokens)
        finally:
            sampler.close()
        return turn.finish()

    def sample_next(self, sampler: TokenSampler, *, grammar: bool) -> int:
        """Sample one token from the current logits."""
        return sampler.sample(self._ctx.ctx, grammar_wanted=grammar)

    def append(self, tokens: Sequence[int]) -> None:
        """Evaluate tokens after the context (the sampled or forced answer)."""
        self._decode(tokens)

    @property
    def free_context(self) -> int:
        """Tokens that still fit in the context after what it holds."""
        return int(self._ctx.n_ctx()) - len(self._tokens)

    def check_cancelled(self) -> None:
        """Raise if the caller cancelled the generation."""
        if self._cancel.is_set():
            raise GenerationCancelledError

    def close(self) -> None:
        """Free the context and the model."""
        self._checkpoints.clear()
        self._batch.close()
        self._ctx.close()
        self._model.close()


class _ContextFull(Exception):
    """The context has no room left for text the engine wants to insert."""


class _Turn:
    """One answer being written: forced tokens, thinking budget, grammar, parse events."""

    def __init__(  # noqa: PLR0917 - what one answer is made of, kept explicit
        self,
        model: LoadedModel,
        request: GenerationRequest,
        prompt: PromptParts,
        stats: GenerationStats,
        sampler: TokenSampler,
        on_event: Callable[[ParseEvent], None] | None,
    ) -> None:
        self._model = model
        self._request = request
        self._prompt = prompt
        self._stats = stats
        self._sampler = sampler
        self._on_event = on_event
        self._parser = ToolCallStreamParser(
            request.tools, starts_in_reasoning=prompt.starts_in_reasoning
        )
        self._answer_end = AnswerEnd(prompt.stop)
        self._decoder = _Utf8Stream()
        self._events: list[ParseEvent] = []
        self._tail = ""
        self._in_reasoning = prompt.starts_in_reasoning
        self._grammar_engaged = False
        self._written = ""
        # Jump-forward decoding inside calls: the grammar's text so far (None: not in a call
        # the forcing can follow).
        self._forcing = (
            CallForcing(request.tools, max_calls=MAX_CALLS_PER_ANSWER, split=model.token_pieces)
            if sampler.has_call_grammar
            else None
        )
        self._call_text: str | None = None
        # The last token written and not evaluated yet: it goes into one batch with the text
        # forced after it, or alone just before the next token is sampled.
        self._unevaluated: list[int] = []

    def run(self, max_tokens: int) -> None:
        stats = self._stats
        model = self._model
        started = time.perf_counter()
        stats.finish_reason = "length"
        try:
            while stats.generated_tokens < max_tokens and self._free_context > 0:
                model.check_cancelled()
                if self._force_if_due():
                    continue
                # Once a call is open the grammar stays on: it allows further calls, then only
                # the end of the turn, as the Qwen3.5 format asks ("NO suffix"). A structured
                # answer is under its grammar from the end of the reasoning to the end (it has
                # no tools: "<tool_call>" in its reasoning is only text).
                if self._request.answer_schema is None:
                    if not self._grammar_engaged and self._parser.in_tool_call:
                        self._engage_call_grammar()
                elif not self._in_reasoning:
                    self._grammar_engaged = True
                if self._jump_forward():
                    continue
                token = self._next_token()
                if token is None:
                    stats.finish_reason = "stop"
                    break
                if self._call_text is not None:
                    stats.call_sampled_tokens += 1
                if model.is_end_of_generation(token):
                    if self._request.answer_schema is not None and self._in_reasoning:
                        # A structured answer is owed: ending inside the reasoning closes it.
                        self._force(REASONING_CLOSE)
                        continue
                    stats.finish_reason = "stop"
                    break
                stats.generated_tokens += 1
                if self._in_reasoning:
                    stats.reasoning_tokens += 1
                was_reasoning = self._in_reasoning
                self._unevaluated.append(token)
                self._emit(self._decoder.feed(model.token_piece(token)))
                if was_reasoning and not self._in_reasoning:
                    self._space_after_reasoning()
                # A structure's JSON may hold any text: its grammar ends it.
                ended = any(marker in self._tail for marker in self._prompt.stop)
                if ended and self._request.answer_schema is None:
                    stats.finish_reason = "stop"
                    break
        except _ContextFull:
            pass
        finally:
            stats.generation_seconds = time.perf_counter() - started

    def _force_if_due(self) -> bool:
        budget = self._request.thinking_budget
        if self._in_reasoning and budget is not None and self._stats.reasoning_tokens >= budget:
            self._stats.thinking_budget_hit = True
            self._force(REASONING_CLOSE)
            return True
        return False

    def _space_after_reasoning(self) -> None:
        """Append the template's blank line after a written "</think>", in the same batch.

        The chat template always puts it there (and renders the turn so in the history), so
        the model has no choice to make: one token fewer to sample before a call or answer.
        """
        if (
            self._request.answer_schema is None
            and self._tail.endswith(THINK_CLOSE)
            and not self._decoder.pending
        ):
            self._force(REASONING_CLOSE.partition(THINK_CLOSE)[2])

    def _engage_call_grammar(self) -> None:
        self._grammar_engaged = True
        # The grammar starts right after "<tool_call>": forcing follows it from there only.
        after = self._written.rpartition(CALL_OPEN)[2]
        self._call_text = "" if not after else None

    def _next_token(self) -> int | None:
        """Return the model's next token, or the Steering's; None: the Steering ends the answer."""
        # A token is chosen from the logits after the last one (a Steering stands in for that).
        self._evaluate()
        model, steering = self._model, self._model.steering
        if steering is not None:
            progress = AnswerProgress(
                self._request, self._written, self._in_reasoning, self._parser.in_tool_call
            )
            text = steering.next_text(progress)
            if text == "":
                return None
            if text and (tokens := model.tokenize(text[:STEERING_LOOKAHEAD], add_bos=False)):
                if self._sampler.take(tokens[0], grammar_wanted=self._grammar_engaged):
                    return tokens[0]
                _LOGGER.debug("The grammar refused the steered text %r", text[:40])
        return model.sample_next(self._sampler, grammar=self._grammar_engaged)

    def _jump_forward(self) -> bool:
        """Append in one batch the call text the grammar allows no choice about."""
        if self._forcing is None or self._call_text is None or self._decoder.pending:
            return False
        forced = self._forcing.forced(self._call_text)
        if not forced:
            return False
        model = self._model
        tokens = model.tokenize(forced, add_bos=False)
        if len(tokens) >= self._free_context:
            raise _ContextFull
        accepted = self._sampler.accept_in_grammar(tokens)
        if not accepted:
            return False
        started = time.perf_counter()
        self._evaluate(accepted)
        self._stats.forced_seconds += time.perf_counter() - started
        self._stats.call_forced_tokens += len(accepted)
        self._emit(self._decoder.feed(b"".join(model.token_piece(t) for t in accepted)))
        return True

    def _force(self, text: str) -> None:
        model = self._model
        tokens = model.tokenize(text, add_bos=False)
        if len(tokens) >= self._free_context:
            # Forced text must leave room for at least one token of answer after it.
            raise _ContextFull
        self._sampler.accept_forced(tokens)
        self._evaluate(tokens)
        self._emit(self._decoder.feed(b"".join(model.token_piece(t) for t in tokens)))

    @property
    def _free_context(self) -> int:
        return self._model.free_context - len(self._unevaluated)

    def _evaluate(self, forced: Sequence[int] = ()) -> None:
        """Evaluate the token not evaluated yet and forced text after it, in one batch."""
        tokens = [*self._unevaluated, *forced]
        self._unevaluated = []
        if tokens:
            self._model.append(tokens)

    def _emit(self, text: str) -> None:
        if not text:
            return
        self._written += text
        if self._call_text is not None:
            self._call_text += text
        self._tail = (self._tail + text)[-TAIL_CHARS:]
        if self._in_reasoning and reasoning_ended(self._tail, self._request):
            self._in_reasoning = False
        self._publish(self._parser.feed(text))

    def _publish(self, events: list[ParseEvent]) -> None:
        self._deliver(self._answer_end.filter(events))

    def _deliver(self, events: list[ParseEvent]) -> None:
        self._events.extend(events)
        if self._on_event is not None:
            for event in events:
                self._on_event(event)

    def finish(self) -> GenerationOutput:
        self._emit(self._decoder.flush())
        self._publish(self._parser.finish())
        self._deliver(self._answer_end.flush())
        if self._stats.finish_reason == "length":
            _LOGGER.debug("Generation stopped at the token limit")
        return GenerationOutput(
            text=self._written,
            events=self._events,
            stats=self._stats,
            prompt=self._prompt,
        )


class _Utf8Stream:
    """Joins token bytes into text without splitting multi-byte characters."""

    def __init__(self) -> None:
        import codecs

        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> str:
        text: str = self._decoder.decode(data)
        return text

    @property
    def pending(self) -> bool:
        """Whether bytes of an unfinished character are held."""
        return bool(self._decoder.getstate()[0])

    def flush(self) -> str:
        text: str = self._decoder.decode(b"", final=True)
        return text
