"""A local HTTP server that answers like the Hugging Face Hub for file downloads.

It serves what ``huggingface_hub`` asks for when resolving and downloading a file:

* ``HEAD /{owner}/{repo}/resolve/{revision}/{filename}``: ``X-Repo-Commit``, ``ETag``,
  ``X-Linked-Etag`` (the LFS sha256), ``X-Linked-Size``, ``Content-Length``; errors carry the Hub's
  ``X-Error-Code`` (``RepoNotFound``, ``RevisionNotFound``, ``EntryNotFound``).
* ``GET`` on the same path: a 302 to ``/cdn/{sha256}`` (as the Hub redirects LFS files to its
  CDN), which serves the bytes with ``Range`` support (206 + ``Content-Range``).

Test knobs: ``drop_after`` cuts the connection once after that many body bytes; ``served_bytes``
replaces what the CDN sends (a checksum mismatch). Every request is recorded.
"""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
from dataclasses import dataclass
from dataclasses import field
import hashlib
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
import re
import threading

from huggingface_hub import close_session

COMMIT = "c0ffee" + "0" * 34


@dataclass
class Request:
    method: str
    path: str
    range: str | None


@dataclass
class FakeHub:
    """Files by (repo_id, filename), and what happened."""

    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    drop_after: int | None = None
    served_bytes: dict[str, bytes] = field(default_factory=dict)
    # False: answer like the Hub for a small non-LFS file (ETag = git blob id, no X-Linked-*).
    lfs: bool = True
    url: str = ""

    def add(self, repo_id: str, filename: str, content: bytes) -> str:
        """Publish a file; return its sha256."""
        self.files[(repo_id, filename)] = content
        return hashlib.sha256(content).hexdigest()

    def ranges(self) -> list[str]:
        """Range headers of the requests that fetched bytes (from the CDN)."""
        return [r.range for r in self.requests if r.range and r.path.startswith("/cdn/")]

    def _by_sha(self, sha: str) -> bytes | None:
        for content in self.files.values():
            if hashlib.sha256(content).hexdigest() == sha:
                return self.served_bytes.get(sha, content)
        return None


_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")
_CDN = re.compile(r"^/cdn/(?P<sha>[0-9a-f]{64})$")
_RANGE = re.compile(r"^bytes=(\d+)-$")


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 10

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _error(self, status: int, code: str) -> None:
            self.send_response(status)
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _serve(self, *, body: bool) -> None:
            path = self.path.split("?", 1)[0]
            hub.requests.append(Request(self.command, path, self.headers.get("Range")))
            if match := _CDN.match(path):
                self._cdn(match["sha"], body=body)
                return
            match = _RESOLVE.match(path)
            if match is None:
                self._error(404, "RepoNotFound")
                return
            repo, rev, filename = match["repo"], match["rev"], match["file"]
            if not any(key[0] == repo for key in hub.files):
                self._error(404, "RepoNotFound")
                return
            if rev not in ("main", COMMIT):
                self._error(404, "RevisionNotFound")
                return
            content = hub.files.get((repo, filename))
            if content is None:
                self._error(404, "EntryNotFound")
                return
            sha = hashlib.sha256(content).hexdigest()
            if body:
                self.send_response(302)
                self.send_header("Location", f"{hub.url}/cdn/{sha}")
            else:
                self.send_response(200)
            self.send_header("X-Repo-Commit", COMMIT)
            if hub.lfs:
                self.send_header("ETag", '"0123456789abcdef0123456789abcdef01234567"')
                self.send_header("X-Linked-Etag", f'"{sha}"')
                self.send_header("X-Linked-Size", str(len(content)))
            else:
                blob = hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False)
                self.send_header("ETag", f'"{blob.hexdigest()}"')
            self.send_header("Content-Length", "0" if body else str(len(content)))
            self.end_headers()

        def _cdn(self, sha: str, *, body: bool) -> None:
            content = hub._by_sha(sha)
            if content is None:
                self._error(404, "EntryNotFound")
                return
            start = 0
            range_header = self.headers.get("Range")
            if range_header and (match := _RANGE.match(range_header)):
                start = int(match[1])
                self.send_response(206)
                end = len(content) - 1
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(content)}")
            else:
                self.send_response(200)
            payload = content[start:]
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if not body:
                return
            if hub.drop_after is not None and len(payload) > hub.drop_after:
                cut, hub.drop_after = hub.drop_after, None
                self.wfile.write(payload[:cut])
                self.wfile.flush()
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(2)
                return
            self.wfile.write(payload)

    return Handler


@contextlib.contextmanager
def serve_hub() -> Iterator[FakeHub]:
    """Run a FakeHub on 127.0.0.1 for the duration of the block."""
    hub = FakeHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(
        target=server.serve_forever, args=(0.02,), name="fake-hub", daemon=True
    )
    thread.start()
    try:
        yield hub
    finally:
        # Close huggingface_hub's pooled connections so the handler threads see EOF and end.
        close_session()
        server.shutdown()
        server.server_close()
        thread.join()
