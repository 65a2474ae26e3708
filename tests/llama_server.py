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

from collections.abc import Iterator, Sequence
import contextlib
import ctypes
from dataclasses import dataclass, field
import importlib.util
import os
from pathlib import Path
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import IO, Final

SERVER_MODULES: Final = (
    "fastapi",
    "uvicorn",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
READY_LINE: Final = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")
START_TIMEOUT: Final = 60.0
PR_SET_PDEATHSIG: Final = 1


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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class LlamaServer:
    """A running `python -m llama_cpp.server` process."""

    model: Path
    process: subprocess.Popen[bytes]
    log_path: Path
    api_key: str | None = None
    port: int = 0
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        """The server's address, as a user would enter it."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model_id(self) -> str:
        """The model's name in /v1/models (the server lists the path it was given)."""
        return str(self.model)

    def log_tail(self, lines: int = 20) -> str:
        """The end of the server's output."""
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until uvicorn listens; raise with the log if the server dies or hangs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log_path.read_text(encoding="utf-8", errors="replace")
            if ready := READY_LINE.search(log):
                self.port = int(ready.group(1))
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited:\n{self.log_tail()}")
            time.sleep(0.05)
        raise RuntimeError(f"llama_cpp.server did not start in {timeout} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """Kill the process (SIGKILL: a crash, as far as clients can tell) and wait for it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None


def start_llama_server(
    model: Path,
    *,
    api_key: str | None = None,
    threads: int = 1,
    n_ctx: int = 8192,
    extra: Sequence[str] = (),
) -> LlamaServer:
    """Start the server on a free loopback port; call wait_ready() before using it."""
    log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed by stop()
        prefix="llama-server-", suffix=".log", delete=False
    )
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        "--interrupt_requests",
        "False",
        "--logits_all",
        "False",
        *(["--api_key", api_key] if api_key else []),
        *extra,
    ]
    process = subprocess.Popen(
        command,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
    )
    return LlamaServer(model, process, Path(log_file.name), api_key, _log=log_file)


def _die_with_parent() -> None:
    """In the child: be killed when the test process dies, even by SIGKILL (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def running_llama_server(
    model: Path, *, api_key: str | None = None, threads: int = 1, extra: Sequence[str] = ()
) -> Iterator[LlamaServer]:
    """Start a server, wait until it listens, stop it afterwards."""
    server = start_llama_server(model, api_key=api_key, threads=threads, extra=extra)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()
        server.log_path.unlink(missing_ok=True)
