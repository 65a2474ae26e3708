"""llama-cpp-python's own OpenAI-compatible server on loopback, for tests and benchmarks.

`python -m llama_cpp.server` from the installed llama-cpp-python with its server extra
(fastapi, uvicorn, sse-starlette, starlette-context, pydantic-settings; requirements_test.txt).
Options that matter:

* ``--interrupt_requests False``: by default the server ends a stream early ([DONE] without a
  finish reason) as soon as another request waits, which breaks concurrent conversations.
* ``--logits_all False``: by default it keeps logits of every prompt position, and with a
  hybrid model (Qwen3.5) each new prompt then costs over a second before its first token.

The server binds a free port itself (port 0) and its log (uvicorn's "running on" line) says
which, so starting it needs no socket in the test process.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
import importlib.util
import os
from pathlib import Path
import re
import sys
from typing import Final

from testing.model_files import llama_threads
from testing.server_process import LOOPBACK_ANY_PORT
from testing.server_process import ServerProcess
from testing.server_process import running
from testing.server_process import spawn

SERVER_MODULES: Final = (
    "fastapi",
    "uvicorn",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
READY_LINE: Final = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


def missing_server_dependencies() -> str | None:
    """Why the server cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed"
    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        return (
            "llama-cpp-python's server extra is not installed (missing "
            f"{', '.join(missing)}; pip install -r requirements_test.txt)"
        )
    return None


@dataclass(kw_only=True)
class LlamaServer(ServerProcess):
    """A running `python -m llama_cpp.server` process."""

    PROGRAM = "llama_cpp.server"
    TAIL_LINES = 20

    @property
    def model_id(self) -> str:
        """The model's name in /v1/models (the server lists the path it was given)."""
        return str(self.model)

    def ready_port(self, log: str) -> int | None:
        """Ready once uvicorn listens."""
        ready = READY_LINE.search(log)
        return int(ready.group(1)) if ready else None


def start_llama_server(
    model: Path,
    *,
    api_key: str | None = None,
    threads: int = 1,
    n_ctx: int = 8192,
    extra: Sequence[str] = (),
) -> LlamaServer:
    """Start the server on a free loopback port; call wait_ready() before using it."""
    n_threads = str(llama_threads(threads))  # for the prompt and for generation
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        *LOOPBACK_ANY_PORT,
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        n_threads,
        "--n_threads_batch",
        n_threads,
        "--interrupt_requests",
        "False",
        "--logits_all",
        "False",
        *(["--api_key", api_key] if api_key else []),
        *extra,
    ]
    process, log = spawn(command, "llama-server-", env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return LlamaServer(
        model=model, process=process, log_path=Path(log.name), api_key=api_key, _log=log
    )


@contextlib.contextmanager
def running_llama_server(
    model: Path, *, api_key: str | None = None, threads: int = 1, extra: Sequence[str] = ()
) -> Iterator[LlamaServer]:
    """Start a server, wait until it listens, stop it afterwards."""
    with running(
        start_llama_server(model, api_key=api_key, threads=threads, extra=extra)
    ) as server:
        yield server
