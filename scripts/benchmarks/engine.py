"""`scripts/bench engine`: our engine against raw llama-cpp-python on the same prompt.

For each model (Gemma 3 270M, the tiny random-weight qwen35 test model, any --model):

* Prompt tokens/s: a cold request (empty context, no checkpoints) through
  `LoadedModel.generate()`, timed by the engine's own stats (tokenized prompt evaluated in
  n_batch chunks, *including* saving its prefix checkpoints), against `Llama.eval()` of the
  very same tokens on a fresh `llama_cpp.Llama` context (static part, then dynamic part, so
  that both evaluate the same batches and a greedy answer comes out token for token the same).
* Generation tokens/s: per-token cost of the answer. Engine: generated tokens / generation time
  (each step: sample, check for the end of the turn, decode the token, stream its text through
  the parser). Raw: `Llama.generate()` with the same sampler settings, each token also
  detokenized; timed from the first yielded token to the last, so both sides count one
  sample + one decode per token. Both stop at the end of the turn or at --gen-tokens.
* Cache: the tokens evaluated and the prompt time of a repeat request (same instructions and
  tools, new time, states and message) after a first one, against the same request cold.

Both sides use the same model file, n_ctx, n_batch (= n_ubatch), threads, flash attention
setting, mmap, and sampler chain (greedy; and the model card's temperature 0.3, top_p 0.95,
top_k 20, presence penalty 1.5 over 512 tokens, with the same seed). The request carries no
tools, so the tool-call grammar never engages (raw has none); the tool schemas are still in the
prompt text. Engine and raw runs alternate, and each figure is the median of --runs.

Tokens/s are wall-clock. On a shared machine other processes steal time from llama.cpp's
threads (which spin at barriers), so the report also gives the ratio of CPU-time rates
(tokens per process CPU-second): with --threads 1 that one is immune to the neighbours.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
import functools
import json
from pathlib import Path
import statistics
import sys
import time
from typing import Any
from typing import Concatenate

from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.local.sampling import PENALTY_WINDOW
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.settings import physical_cores

from . import prompt_fixture

GOAL_RATIO = 0.97
SEED = 1234
MODES: dict[str, SamplingSettings] = {
    "greedy": SamplingSettings(temperature=0.0, presence_penalty=0.0, seed=SEED),
    "model card": SamplingSettings(seed=SEED),
}


@dataclass(slots=True)
class Side:
    """Samples of one side (engine or raw) for one model and sampling mode."""

    prompt_tps: list[float] = field(default_factory=list)
    generation_tps: list[float] = field(default_factory=list)
    prompt_cpu_tps: list[float] = field(default_factory=list)
    generation_cpu_tps: list[float] = field(default_factory=list)
    generated: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def add(self, figures: Figures) -> None:
        """Record one run."""
        self.prompt_tps.append(figures.prompt_tps)
        self.generation_tps.append(figures.generation_tps)
        self.prompt_cpu_tps.append(figures.prompt_cpu_tps)
        self.generation_cpu_tps.append(figures.generation_cpu_tps)
        self.generated.append(figures.generated)
        self.texts.append(figures.text)


@dataclass(frozen=True, slots=True)
class Figures:
    """One cold request: prompt and generation rates (wall and CPU), what was written."""

    prompt_tps: float
    generation_tps: float
    prompt_cpu_tps: float
    generation_cpu_tps: float
    generated: int
    text: str


def _rate(count: int, seconds: float) -> float:
    return count / seconds if count > 0 and seconds > 0 else 0.0


@dataclass(slots=True)
class CacheFigures:
    """A repeat request with the static prefix cached, and the same request cold."""

    prompt_tokens: int
    static_tokens: int
    dynamic_tokens: int
    evaluated_cold: int
    evaluated_warm: int
    checkpoint_restored: bool
    cold_ms: list[float] = field(default_factory=list)
    warm_ms: list[float] = field(default_factory=list)
    checkpoint_count: int = 0
    checkpoint_bytes: int = 0


@dataclass(slots=True)
class ModelResult:
    """Everything measured on one model."""

    name: str
    path: str
    architecture: str | None
    prompt_tokens: int
    modes: dict[str, dict[str, Side]] = field(default_factory=dict)
    cache: CacheFigures | None = None


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


# --- Raw llama-cpp-python --------------------------------------------------------------------


class RawLlama:
    """`llama_cpp.Llama` set up like our engine."""

    def __init__(self, path: Path, settings: EngineSettings) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self.llm: Any = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=settings.n_ctx,
            n_batch=settings.n_batch,
            n_ubatch=settings.n_batch,
            n_threads=settings.threads,
            n_threads_batch=settings.threads,
            flash_attn=bool(settings.flash_attention),
            use_mmap=settings.use_mmap,
            last_n_tokens_size=PENALTY_WINDOW,
            seed=SEED,
            verbose=False,
        )
        self._vocab = self.llm._model.vocab

    def tokens(self, parts: PromptParts) -> tuple[list[int], list[int]]:
        """The engine's tokenization: static part (with BOS) and dynamic part separately."""
        static = self.llm.tokenize(parts.static.encode(), add_bos=True, special=True)
        dynamic = self.llm.tokenize(parts.dynamic.encode(), add_bos=not static, special=True)
        return static, dynamic

    def run(
        self, prompt: tuple[list[int], list[int]], sampling: SamplingSettings, max_tokens: int
    ) -> Figures:
        """Evaluate the prompt cold, then generate.

        The static and dynamic parts are evaluated one after the other, as the engine does
        (it saves a checkpoint in between): batch boundaries change the floating-point
        summation order, and with it, eventually, a real model's greedy choices.
        """
        static, dynamic = prompt
        tokens = [*static, *dynamic]
        llm = self.llm
        llm.reset()
        llm._ctx.kv_cache_clear()
        cpu, wall = time.process_time(), time.perf_counter()
        llm.eval(static)
        llm.eval(dynamic)
        prompt_cpu, prompt_wall = time.process_time() - cpu, time.perf_counter() - wall

        if sampling.greedy:
            options: dict[str, Any] = {"temp": 0.0, "presence_penalty": sampling.presence_penalty}
        else:
            options = {
                "temp": sampling.temperature,
                "top_k": sampling.top_k,
                "top_p": sampling.top_p,
                "min_p": sampling.min_p,
                "typical_p": 1.0,
                "presence_penalty": sampling.presence_penalty,
            }
        llm.set_seed(sampling.seed if sampling.seed is not None else SEED)
        pieces: list[bytes] = []
        first = last = first_cpu = last_cpu = 0.0
        count = 0
        for token in llm.generate([], reset=False, repeat_penalty=1.0, **options):
            if self._llama_cpp.llama_vocab_is_eog(self._vocab, token):
                break
            pieces.append(llm.detokenize([token], special=True))
            count += 1
            last, last_cpu = time.perf_counter(), time.process_time()
            if count == 1:
                first, first_cpu = last, last_cpu
            if count >= max_tokens:
                break
        # From the first token to the last: count - 1 steps of sample + decode each.
        return Figures(
            prompt_tps=_rate(len(tokens), prompt_wall),
            generation_tps=_rate(count - 1, last - first),
            prompt_cpu_tps=_rate(len(tokens), prompt_cpu),
            generation_cpu_tps=_rate(count - 1, last_cpu - first_cpu),
            generated=count,
            text=b"".join(pieces).decode("utf-8", "replace"),
        )

    def close(self) -> None:
        self.llm.close()


# --- Our engine -------------------------------------------------------------------------------


def _engine_request(
    parts: PromptParts, sampling: SamplingSettings, max_tokens: int
) -> GenerationRequest:
    return GenerationRequest(
        parts,
        sampling=sampling,
        max_tokens=max_tokens,
        thinking_budget=None,  # nothing forced: both sides sample every token
    )


def _noting_cpu[**P, R](
    method: Callable[Concatenate[LoadedModel, P], R],
) -> Callable[Concatenate[TimedModel, P], R]:
    """The runtime's own method (its signature too), noting the process CPU time it took."""

    @functools.wraps(method)
    def timed(self: TimedModel, /, *args: P.args, **kwargs: P.kwargs) -> R:
        started = time.process_time()
        try:
            return method(self, *args, **kwargs)
        finally:
            self.prompt_cpu = time.process_time() - started

    return timed


class TimedModel(LoadedModel):
    """Our runtime, also noting the process CPU time its prompt evaluation took."""

    prompt_cpu = 0.0
    evaluate_prompt = _noting_cpu(LoadedModel.evaluate_prompt)


def _engine_run(
    runtime: TimedModel, parts: PromptParts, sampling: SamplingSettings, max_tokens: int
) -> Figures:
    runtime.reset_cache()
    started = time.process_time()
    output = runtime.generate(_engine_request(parts, sampling, max_tokens))
    generation_cpu = time.process_time() - started - runtime.prompt_cpu
    stats = output.stats
    return Figures(
        prompt_tps=_rate(stats.evaluated_tokens, stats.prompt_seconds),
        generation_tps=_rate(stats.generated_tokens, stats.generation_seconds),
        prompt_cpu_tps=_rate(stats.evaluated_tokens, runtime.prompt_cpu),
        generation_cpu_tps=_rate(stats.generated_tokens, generation_cpu),
        generated=stats.generated_tokens,
        text=output.text,
    )


def _measure_cache(runtime: TimedModel, runs: int) -> CacheFigures:
    first = prompt_fixture.first_request()
    repeat = prompt_fixture.repeat_request()
    assert first.static == repeat.static
    static_tokens = len(runtime.tokenize(repeat.static, add_bos=True))
    dynamic_tokens = len(runtime.tokenize(repeat.dynamic, add_bos=False))
    no_answer = SamplingSettings(temperature=0.0)
    figures: CacheFigures | None = None
    cold_ms: list[float] = []
    warm_ms: list[float] = []
    for _ in range(runs):
        runtime.reset_cache()
        cold = runtime.evaluate_prompt(repeat.static, repeat.dynamic)
        runtime.reset_cache()
        runtime.generate(_engine_request(first, no_answer, 8))
        warm = runtime.evaluate_prompt(repeat.static, repeat.dynamic)
        cold_ms.append(cold.prompt_seconds * 1000)
        warm_ms.append(warm.prompt_seconds * 1000)
        figures = CacheFigures(
            prompt_tokens=warm.prompt_tokens,
            static_tokens=static_tokens,
            dynamic_tokens=dynamic_tokens,
            evaluated_cold=cold.evaluated_tokens,
            evaluated_warm=warm.evaluated_tokens,
            checkpoint_restored=warm.checkpoint_restored,
            checkpoint_count=runtime.checkpoint_stats.count,
            checkpoint_bytes=runtime.checkpoint_bytes,
        )
    assert figures is not None
    figures.cold_ms = cold_ms
    figures.warm_ms = warm_ms
    return figures


# --- Driver -----------------------------------------------------------------------------------


def _log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


@contextlib.contextmanager
def _opened(path: Path, settings: EngineSettings) -> Iterator[tuple[TimedModel, RawLlama]]:
    runtime = TimedModel(path, settings)
    try:
        raw = RawLlama(path, settings)
        try:
            yield runtime, raw
        finally:
            raw.close()
    finally:
        runtime.close()


def bench_model(
    name: str, path: Path, settings: EngineSettings, *, runs: int, gen_tokens: int
) -> ModelResult:
    """Measure one model: both sides, both sampling modes, and the cache."""
    parts = prompt_fixture.first_request()
    with _opened(path, settings) as (runtime, raw):
        static, dynamic = raw.tokens(parts)
        tokens = [*static, *dynamic]
        engine_tokens = runtime.tokenize(parts.static, add_bos=True)
        engine_tokens += runtime.tokenize(parts.dynamic, add_bos=not engine_tokens)
        assert tokens == engine_tokens, "raw and engine tokenize the prompt differently"
        result = ModelResult(
            name=name,
            path=str(path),
            architecture=runtime.info.architecture,
            prompt_tokens=len(tokens),
        )
        _log(f"{name}: {len(tokens)} prompt tokens; warming up")
        _engine_run(runtime, parts, MODES["greedy"], 4)
        raw.run((static, dynamic), MODES["greedy"], 4)

        for mode, sampling in MODES.items():
            sides = {"engine": Side(), "raw": Side()}
            for index in range(runs):
                _log(f"{name}: {mode} run {index + 1}/{runs}")
                order = ("engine", "raw") if index % 2 == 0 else ("raw", "engine")
                for side in order:
                    if side == "engine":
                        sides[side].add(_engine_run(runtime, parts, sampling, gen_tokens))
                    else:
                        sides[side].add(raw.run((static, dynamic), sampling, gen_tokens))
            result.modes[mode] = sides
        _log(f"{name}: cache")
        result.cache = _measure_cache(runtime, runs)
    return result


def _ratio(engine: float, raw: float) -> float:
    return engine / raw if raw else 0.0


def render_table(results: Sequence[ModelResult], settings: EngineSettings, runs: int) -> str:
    """The human-readable report."""
    flash = {None: "auto", True: "on", False: "off"}[settings.flash_attention]
    lines = [
        f"Engine vs raw llama-cpp-python: threads {settings.threads}, n_ctx {settings.n_ctx}, "
        f"n_batch {settings.n_batch}, flash attention {flash}; median of {runs} runs "
        f"(goal: ratio >= {GOAL_RATIO})",
        "",
        f"{'model':<14} {'sampling':<11} {'phase':<10} {'tokens':>6} {'engine tok/s':>13} "
        f"{'raw tok/s':>10} {'ratio':>6}  {'cpu ratio':>9}  same text",
    ]
    for result in results:
        for mode, sides in result.modes.items():
            engine, raw = sides["engine"], sides["raw"]
            rows = (
                (
                    "prompt",
                    result.prompt_tokens,
                    (engine.prompt_tps, raw.prompt_tps),
                    (engine.prompt_cpu_tps, raw.prompt_cpu_tps),
                    "",
                ),
                (
                    "generation",
                    int(_median(engine.generated)),
                    (engine.generation_tps, raw.generation_tps),
                    (engine.generation_cpu_tps, raw.generation_cpu_tps),
                    "yes" if engine.texts == raw.texts else "no",
                ),
            )
            for phase, count, (ours, theirs), (ours_cpu, theirs_cpu), same in rows:
                ratio = _ratio(_median(ours), _median(theirs))
                cpu_ratio = _ratio(_median(ours_cpu), _median(theirs_cpu))
                flag = "" if max(ratio, cpu_ratio) >= GOAL_RATIO else " <"
                row = (
                    f"{result.name:<14} {mode:<11} {phase:<10} {count:>6} {_median(ours):>13.1f} "
                    f"{_median(theirs):>10.1f} {ratio:>6.3f}  {cpu_ratio:>9.3f}{flag:<2} {same}"
                )
                lines.append(row.rstrip())
    lines += [
        "",
        "Repeat request (same instructions + tools; new time, states and message):",
        f"{'model':<14} {'prompt':>6} {'static':>6} {'dynamic':>7} {'eval cold':>9} "
        f"{'eval warm':>9} {'cold ms':>8} {'warm ms':>8} {'checkpoints':>11} {'MiB':>6}",
    ]
    for result in results:
        cache = result.cache
        if cache is None:
            continue
        lines.append(
            f"{result.name:<14} {cache.prompt_tokens:>6} {cache.static_tokens:>6} "
            f"{cache.dynamic_tokens:>7} {cache.evaluated_cold:>9} {cache.evaluated_warm:>9} "
            f"{_median(cache.cold_ms):>8.1f} {_median(cache.warm_ms):>8.1f} "
            f"{cache.checkpoint_count:>11} {cache.checkpoint_bytes / 2**20:>6.1f}"
        )
    return "\n".join(lines)


def to_json(results: Sequence[ModelResult], settings: EngineSettings, runs: int) -> dict[str, Any]:
    """The figures, with medians, for --json."""
    models = []
    for result in results:
        data = asdict(result)
        for mode, sides in result.modes.items():
            engine, raw = sides["engine"], sides["raw"]
            data["modes"][mode]["median"] = {
                name: {"engine": _median(getattr(engine, name)), "raw": _median(getattr(raw, name))}
                for name in ("prompt_tps", "generation_tps", "prompt_cpu_tps", "generation_cpu_tps")
            }
            data["modes"][mode]["ratio"] = {
                name: _ratio(_median(getattr(engine, name)), _median(getattr(raw, name)))
                for name in ("prompt_tps", "generation_tps", "prompt_cpu_tps", "generation_cpu_tps")
            }
            data["modes"][mode]["same_text"] = engine.texts == raw.texts
        models.append(data)
    return {
        "settings": {**asdict(settings), "threads": settings.threads},
        "runs": runs,
        "goal_ratio": GOAL_RATIO,
        "models": models,
    }


def _default_models(include_gemma: bool) -> list[tuple[str, Path]]:
    from testing.model_files import ensure_gemma_model
    from testing.model_files import ensure_qwen35_test_model

    models = []
    if include_gemma:
        models.append(("gemma3-270m", ensure_gemma_model()))
    models.append(("qwen35-tiny", ensure_qwen35_test_model()))
    return models


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/bench engine",
        description="Prompt and generation speed of our engine vs raw llama-cpp-python.",
    )
    parser.add_argument("--model", type=Path, action="append", default=[], help="extra GGUF")
    parser.add_argument("--only", action="store_true", help="only the --model files")
    parser.add_argument("--no-gemma", action="store_true", help="skip Gemma 3 270M")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=physical_cores())
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--n-batch", type=int, default=512)
    parser.add_argument(
        "--flash-attention", choices=("on", "off"), default="off", help="same on both sides"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)

    settings = EngineSettings(
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        n_batch=args.n_batch,
        flash_attention=args.flash_attention == "on",
    )
    models = [] if args.only else _default_models(not args.no_gemma)
    models += [(path.stem[:14], path) for path in args.model]
    if not models:
        parser.error("no models to measure")
    results = [
        bench_model(name, path, settings, runs=args.runs, gen_tokens=args.gen_tokens)
        for name, path in models
    ]
    sys.stdout.write(render_table(results, settings, args.runs) + "\n")
    if args.json:
        args.json.write_text(json.dumps(to_json(results, settings, args.runs), indent=2) + "\n")
        sys.stdout.write(f"\nFigures written to {args.json}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
