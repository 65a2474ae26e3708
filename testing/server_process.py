"""A model server run as a child process on loopback, for tests and benchmarks.

What llama-cpp-python's server (llama_server.py) and llama.cpp's llama-server
(real_llama_server.py) share: the child writes its log to a temporary file, dies with the
test process, binds a free port itself (port 0) and says which in its log, so starting it
needs no socket in the test process.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
import contextlib
import ctypes
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import IO
from typing import ClassVar
from typing import Final

START_TIMEOUT: Final = 60.0
# Where both servers listen: loopback, on a port they pick themselves and name in their log.
LOOPBACK_ANY_PORT: Final = ("--host", "127.0.0.1", "--port", "0")
PR_SET_PDEATHSIG: Final = 1


def free_local_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now (for a server
    that cannot pick its own, or a URL where no server is)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(kw_only=True)
class ServerProcess:
    """A running server process and its log; subclasses say when it is ready."""

    # The program's name in errors, and how much of the log they show.
    PROGRAM: ClassVar[str] = "server"
    TAIL_LINES: ClassVar[int] = 25

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

    def log(self) -> str:
        """The server's whole output so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_tail(self, lines: int | None = None) -> str:
        """The end of the server's output."""
        return "\n".join(self.log().splitlines()[-(lines or self.TAIL_LINES) :])

    def ready_port(self, log: str) -> int | None:
        """The port the server listens on, once its log says it is ready."""
        raise NotImplementedError

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until the server is ready; raise with the log if it dies or hangs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (port := self.ready_port(self.log())) is not None:
                self.port = port
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.PROGRAM} exited:\n{self.log_tail()}")
            time.sleep(0.05)
        raise RuntimeError(f"{self.PROGRAM} did not start in {timeout} s:\n{self.log_tail()}")

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


def spawn(
    command: Sequence[str], log_prefix: str, env: Mapping[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
    """Start command with its output in a new temporary log file (closed by `stop()`)."""
    log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed by stop()
        prefix=log_prefix, suffix=".log", delete=False
    )
    process = subprocess.Popen(
        command,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
    )
    return process, log_file


def _die_with_parent() -> None:
    """In the child: be killed when the test process dies, even by SIGKILL (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def running[Server: ServerProcess](server: Server) -> Iterator[Server]:
    """Wait until a started server is ready, stop it (and remove its log) afterwards."""
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()
        server.log_path.unlink(missing_ok=True)
