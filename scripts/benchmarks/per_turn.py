"""`scripts/bench per_turn`: event-loop time and states read per turn, by home size.

For each home size (default 200, 1000 and 5000 entities; testing/synthetic.py) a real Home
Assistant runs in-process with the Local Agent and a stand-in model that writes scripted calls
(testing/stand_in.py); only the first --exposed entities (default 100) are exposed, so the rest
is house that a command should not pay for. Each kind of turn runs --turns times, each in a new
conversation, by a person: a light turned on, a lock's unlock (held for confirmation), a read,
and a call the agent refuses (an entity that is not exposed).

* loop CPU: the event-loop thread's CPU time for the whole turn (other processes cannot inflate
  it), median.
* states read: the states the turn read from Home Assistant's state machine (each
  `hass.states.get` one, each `async_all`/`async_entity_ids` as many as it returned), counted
  by a wrapper around the state machine here (not in the product), median; with the walks
  (calls that returned more than WALK_SIZE states) by where they were made, so a walk that
  grows with the house shows where it is.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
from pathlib import Path
import statistics
import sys
import time
from typing import Any
from typing import Final
from unittest.mock import patch

from custom_components.local_agent import compat
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from testing.agent import LocalAgentHandle
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.hass_runner import configure_logging
from testing.home_builder import async_expose_only
from testing.models import QWEN35_TEST
from testing.models import ModelFileError
from testing.models import resolve_model
from testing.stand_in import StandInWorker
from testing.stand_in import answer
from testing.stand_in import call
from testing.state_reads import WALK_SIZE
from testing.state_reads import StateReads
from testing.state_reads import counting_state_reads
from testing.synthetic import SyntheticHome
from testing.synthetic import async_setup_synthetic_home

SIZES: Final = (200, 1000, 5000)
DEFAULT_EXPOSED: Final = 100
DEFAULT_TURNS: Final = 5


@dataclass(frozen=True, slots=True)
class TurnKind:
    """A kind of turn: the sentence and what the model writes for it in this home."""

    name: str
    sentence: str
    outputs: Callable[[SyntheticHome], tuple[str, ...]]


def _first(home: SyntheticHome, domain: str) -> str:
    return next(spec.entity_id for spec in home.specs if spec.domain == domain)


TURNS: Final = (
    TurnKind(
        "light on",
        "turn on the light",
        lambda home: (
            answer(call("light", action="turn_on", entity_id=_first(home, "light"))),
            answer("Done."),
        ),
    ),
    TurnKind(
        "unlock (held)",
        "unlock the door",
        lambda home: (answer(call("lock", action="unlock", entity_id=_first(home, "lock"))),),
    ),
    TurnKind(
        "read",
        "how warm is it",
        lambda home: (
            answer(call("get_state", entity_id=_first(home, "sensor"))),
            answer("It is warm."),
        ),
    ),
    TurnKind(
        "refused call",
        "turn on the shed light",
        lambda home: (
            answer(call("light", action="turn_on", entity_id="light.not_in_this_home")),
            answer("I cannot."),
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class TurnFigures:
    """Medians of one kind of turn in one home."""

    size: int
    kind: str
    loop_cpu_ms: float
    states_read: float
    objects_read: float
    walks: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class TurnSample:
    """One turn: event-loop CPU seconds, states read, entity objects searched for actions."""

    cpu: float
    reads: StateReads
    objects: int


@contextlib.contextmanager
def counting_objects_read() -> Iterator[list[int]]:
    """Count the entity objects searched for actions of their own (compat.entities_with_actions
    looks at every entity of a domain: a walk of the house that reads no state)."""
    count = [0]
    search = compat.entity_action_sequences

    def counted(hass: HomeAssistant, entity_id: str) -> list[list[Any]] | None:
        count[0] += 1
        return search(hass, entity_id)

    with patch.object(compat, "entity_action_sequences", counted):
        yield count


async def _async_turn(
    handle: LocalAgentHandle,
    stand_in: StandInWorker,
    outputs: Sequence[str],
    sentence: str,
    context: Context,
) -> TurnSample:
    stand_in.queued.clear()
    stand_in.will_write(*outputs)
    with counting_state_reads() as reads, counting_objects_read() as objects:
        started = time.thread_time()
        await handle.async_ask(sentence, context=context)
        await handle.hass.async_block_till_done()
        cpu = time.thread_time() - started
    return TurnSample(cpu, reads, objects[0])


async def async_measure(size: int, exposed: int, model_path: Path, turns: int) -> list[TurnFigures]:
    """Boot a home of size entities, the first `exposed` of them exposed; run each kind of turn
    `turns` times (after one warm-up)."""
    figures: list[TurnFigures] = []
    async with async_home_assistant() as hass:
        home = await async_setup_synthetic_home(hass, size)
        async_expose_only(hass, home.entity_ids[:exposed])
        person = await async_create_person(hass, "Ann")
        stand_in = StandInWorker(model_path)
        async with async_local_agent(hass, model_path, stand_in=stand_in) as handle:
            for kind in TURNS:
                outputs = kind.outputs(home)
                samples = [
                    await _async_turn(
                        handle, stand_in, outputs, kind.sentence, Context(user_id=person)
                    )
                    for _ in range(turns + 1)
                ][1:]
                walks: Counter[str] = Counter()
                for sample in samples:
                    walks.update(sample.reads.walks)
                figures.append(
                    TurnFigures(
                        size=size,
                        kind=kind.name,
                        loop_cpu_ms=statistics.median(sample.cpu for sample in samples) * 1000,
                        states_read=statistics.median(sample.reads.count for sample in samples),
                        objects_read=statistics.median(sample.objects for sample in samples),
                        walks=tuple((where, n // turns) for where, n in walks.most_common()),
                    )
                )
    print(f"measured {size} entities", file=sys.stderr, flush=True)
    return figures


def report(figures: Sequence[TurnFigures], exposed: int, turns: int) -> str:
    """Return the printed table, then the walks by where they were made."""
    lines = [
        f"Per turn (median of {turns}, a warm-up turn apart; {exposed} entities exposed): "
        "event-loop CPU, states read, entity objects searched for actions of their own",
        f"{'entities':>8} | {'turn':<14} | {'loop CPU ms':>11} | {'states read':>11} | "
        f"{'objects read':>12}",
    ]
    lines += [
        f"{f.size:>8} | {f.kind:<14} | {f.loop_cpu_ms:>11.2f} | {f.states_read:>11,.0f} | "
        f"{f.objects_read:>12,.0f}"
        for f in figures
    ]
    lines += ["", f"Walks (calls that returned more than {WALK_SIZE} states), states per turn:"]
    for f in figures:
        for where, states in f.walks:
            lines.append(f"{f.size:>8} | {f.kind:<14} | {where:<40} {states:>7,}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="scripts/bench per_turn", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",")],
        default=list(SIZES),
        help="home sizes, comma-separated (default: 200,1000,5000)",
    )
    parser.add_argument(
        "--exposed",
        type=int,
        default=DEFAULT_EXPOSED,
        help=f"entities exposed to Assist, the first of each home (default {DEFAULT_EXPOSED}); "
        "the others are the house the command should not pay for",
    )
    parser.add_argument("--turns", type=int, default=DEFAULT_TURNS, help="timed turns per kind")
    parser.add_argument("-v", "--verbose", action="store_true", help="log Home Assistant debug")
    return parser.parse_args(argv)


async def async_run(sizes: Sequence[int], exposed: int, turns: int) -> list[TurnFigures]:
    """Measure every size."""
    model_path = resolve_model(QWEN35_TEST)  # only its GGUF header is read: the model is a stand-in
    figures: list[TurnFigures] = []
    for size in sizes:
        figures += await async_measure(size, exposed, model_path, turns)
    return figures


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    args = parse_args(argv)
    configure_logging(verbose=args.verbose)
    try:
        figures = asyncio.run(async_run(args.sizes, args.exposed, args.turns))
    except (HarnessError, ModelFileError) as err:
        print(f"scripts/bench per_turn: {err}", file=sys.stderr)
        return 1
    print(report(figures, args.exposed, args.turns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
