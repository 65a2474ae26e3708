"""Find, download and verify GGUF model files on the Hugging Face Hub.

Everything here blocks: call it from an executor. No Home Assistant imports.

A download goes to ``<name>.<tag>.part`` next to its target (tag: the first characters of the
file's checksum, so a part of another revision is never continued). An interrupted transfer is
resumed with an HTTP Range request, in the same call (the connection dropped) or a later one (the
flow was closed, Home Assistant restarted). The part is renamed to its final name only after its
size and checksum (sha256 of LFS files, git blob sha1 of small ones, both from the Hub's own
metadata) match: a half or damaged file is never taken for a model.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import contextlib
from dataclasses import dataclass
import errno
import hashlib
import logging
import os
from pathlib import Path
from pathlib import PurePosixPath
import re
import shutil
import socket
import ssl
import threading
from typing import BinaryIO
from typing import ClassVar
from typing import Final
from typing import Protocol

import httpx2
from huggingface_hub import constants
from huggingface_hub import get_hf_file_metadata
from huggingface_hub import get_session
from huggingface_hub import hf_hub_url
from huggingface_hub import hf_raise_for_status
from huggingface_hub.errors import GatedRepoError
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.errors import HFValidationError
from huggingface_hub.errors import OfflineModeIsEnabled
from huggingface_hub.errors import RemoteEntryNotFoundError
from huggingface_hub.errors import RepositoryNotFoundError
from huggingface_hub.errors import RevisionNotFoundError

_LOGGER = logging.getLogger(__name__)

MODELS_SUBDIR: Final = ("local_agent", "models")
DEFAULT_REVISION: Final = "main"
CHUNK_SIZE: Final = 1024 * 1024
# A failed transfer is resumed this many times (waiting RETRY_WAIT seconds) before giving up.
MAX_RETRIES: Final = 5
RETRY_WAIT = 2.0
# Room left free on the disk after a download, so Home Assistant can still write its database.
DISK_RESERVE: Final = 100 * 1000 * 1000
# RAM a model needs: its weights plus ~20% (compute buffers, vocabulary, runtime), plus the
# context (~32 KiB per token for a Qwen3.5-0.8B-sized model with a few attention layers).
RAM_FACTOR: Final = 1.2
RAM_PER_CONTEXT_TOKEN: Final = 32 * 1024

LFS_THRESHOLD: Final = 10 * 1024 * 1024
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_GIT_SHA1 = re.compile(r"^[0-9a-f]{40}$")


# Errors ---------------------------------------------------------------------------------------


class ModelStoreError(Exception):
    """A problem a user can act on; ``key`` is its translation key."""

    key: ClassVar[str] = "download_failed"

    def __init__(self, detail: str = "", **placeholders: str) -> None:
        """Keep the detail (shown as {error}) and any other message placeholders."""
        super().__init__(detail or self.key)
        self.placeholders = {"error": detail, **placeholders}


class InvalidRepoIdError(ModelStoreError):
    """The repository id is not of the form owner/name."""

    key = "invalid_repo_id"


class InvalidFilenameError(ModelStoreError):
    """The file name is not a .gguf path inside the repository."""

    key = "invalid_filename"


class HubUnreachableError(ModelStoreError):
    """No connection to the Hub (or it broke too often)."""

    key = "hub_unreachable"


class HubRefusedError(HubUnreachableError):
    """The Hub's address (or HF_ENDPOINT's) refused the connection."""

    key = "hub_unreachable_refused"


class HubUnknownHostError(HubUnreachableError):
    """The Hub's host name does not resolve: no DNS, or no internet at all."""

    key = "hub_unreachable_unknown_host"


class HubTimedOutError(HubUnreachableError):
    """The Hub did not answer in time (a firewall dropping it, a connection that is down)."""

    key = "hub_unreachable_timed_out"


class HubTlsError(HubUnreachableError):
    """The secure connection failed: a wrong clock, a proxy that intercepts HTTPS."""

    key = "hub_unreachable_tls"


# Why no connection was made, where the system said so plainly: its words (English, an errno)
# go to the log, the user reads the cause in their language.
_UNREACHABLE: Final[tuple[tuple[type[BaseException], type[HubUnreachableError]], ...]] = (
    (socket.gaierror, HubUnknownHostError),
    (ConnectionRefusedError, HubRefusedError),
    (ssl.SSLError, HubTlsError),
    (httpx2.TimeoutException, HubTimedOutError),
    (TimeoutError, HubTimedOutError),
)


def hub_unreachable(err: BaseException) -> HubUnreachableError:
    """Return the error that says why no connection to the Hub was made, and log its words."""
    detail = str(err) or type(err).__name__
    _LOGGER.warning("Cannot reach the Hugging Face Hub: %s", detail)
    cause: BaseException | None = err
    while cause is not None:
        for system_error, error in _UNREACHABLE:
            if isinstance(cause, system_error):
                return error(detail)
        cause = cause.__cause__ or cause.__context__
    return HubUnreachableError(detail)


class DownloadInterruptedError(HubUnreachableError):
    """The connection broke too often during a transfer; the part received so far is kept."""

    key = "download_interrupted"


class HubOfflineError(ModelStoreError):
    """HF_HUB_OFFLINE is set."""

    key = "hub_offline"


class RepoNotFoundError(ModelStoreError):
    """The repository does not exist or is private."""

    key = "repo_not_found"


class RepoGatedError(ModelStoreError):
    """The repository needs an accepted licence and a token."""

    key = "repo_gated"


class RevisionMissingError(ModelStoreError):
    """The branch, tag or commit does not exist."""

    key = "revision_not_found"


class FileMissingError(ModelStoreError):
    """The repository has no such file."""

    key = "file_not_found"


class DiskFullError(ModelStoreError):
    """Not enough free space for the file."""

    key = "disk_full"


class ChecksumMismatchError(ModelStoreError):
    """The downloaded bytes are not the file the Hub describes."""

    key = "checksum_mismatch"


class DownloadCancelledError(ModelStoreError):
    """The caller stopped the download (the part is kept for a later resume)."""

    key = "download_cancelled"


# Remote files ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelSource:
    """Where a model comes from on the Hub."""

    repo_id: str
    filename: str
    revision: str = DEFAULT_REVISION


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """A file on the Hub as its metadata describes it."""

    source: ModelSource
    url: str
    size: int
    sha256: str | None
    git_sha1: str | None
    commit: str | None

    @property
    def tag(self) -> str:
        """Short identity of this exact content (names the partial file)."""
        return (self.sha256 or self.git_sha1 or self.commit or "unverified")[:12]


def hub_endpoint() -> str:
    """Return the Hub's address: HF_ENDPOINT when set (read now, not at import), else the Hub."""
    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def validate_source(source: ModelSource) -> None:
    """Raise when the repository id or file name cannot be a GGUF file on the Hub."""
    if not _REPO_ID.match(source.repo_id) or "--" in source.repo_id or ".." in source.repo_id:
        raise InvalidRepoIdError(source.repo_id)
    name = PurePosixPath(source.filename)
    if (
        not source.filename
        or name.is_absolute()
        or any(part in ("", ".", "..") for part in source.filename.split("/"))
        or name.suffix.lower() != ".gguf"
    ):
        raise InvalidFilenameError(source.filename)


# The Hub's errors that say what is missing, each with ours; checked in this order (a gated
# repository is also one not found). Their message's first line is kept, not the request's.
_HUB_ERRORS: Final[tuple[tuple[type[HfHubHTTPError], type[ModelStoreError]], ...]] = (
    (GatedRepoError, RepoGatedError),
    (RepositoryNotFoundError, RepoNotFoundError),
    (RevisionNotFoundError, RevisionMissingError),
    (RemoteEntryNotFoundError, FileMissingError),
)


def _hub_error(err: Exception) -> ModelStoreError:
    """Translate a huggingface_hub or HTTP error into one a user can act on."""
    if isinstance(err, ModelStoreError):
        return err
    if isinstance(err, OfflineModeIsEnabled):
        return HubOfflineError(str(err))
    first_line = str(err).split("\n", 1)[0]
    for hub_error, error in _HUB_ERRORS:
        if isinstance(err, hub_error):
            return error(first_line)
    if isinstance(err, HfHubHTTPError):
        status = err.response.status_code if err.response is not None else None
        if status == 404:
            return FileMissingError(first_line)
        return ModelStoreError(f"HTTP {status}: {first_line}")
    if isinstance(err, HFValidationError):
        return InvalidRepoIdError(str(err))
    if isinstance(err, (httpx2.HTTPError, OSError)):
        return hub_unreachable(err)
    return ModelStoreError(str(err))


def fetch_remote_file(source: ModelSource, endpoint: str | None = None) -> RemoteFile:
    """Ask the Hub for the file's size, checksum and commit (one HEAD request)."""
    validate_source(source)
    endpoint = endpoint or hub_endpoint()
    try:
        url = hf_hub_url(
            source.repo_id, source.filename, revision=source.revision, endpoint=endpoint
        )
        metadata = get_hf_file_metadata(url, token=False, endpoint=endpoint)
    except Exception as err:  # every failure becomes a user-facing error
        raise _hub_error(err) from err
    if metadata.size is None:
        raise ModelStoreError("the Hub did not report the file's size")
    etag = (metadata.etag or "").lower()
    commit = metadata.commit_hash
    return RemoteFile(
        source=source,
        # The resolve URL at the exact commit: the CDN address behind it expires, this does not.
        url=hf_hub_url(
            source.repo_id, source.filename, revision=commit or source.revision, endpoint=endpoint
        ),
        size=metadata.size,
        sha256=etag if _SHA256.match(etag) else None,
        # A 40-hex etag is the git blob id of a small, non-LFS file. Bigger files are LFS on the
        # Hub: a 40-hex etag there would describe the pointer, not the content.
        git_sha1=etag if _GIT_SHA1.match(etag) and metadata.size < LFS_THRESHOLD else None,
        commit=commit,
    )


# Local files ----------------------------------------------------------------------------------


def models_dir(config_dir: str | Path) -> Path:
    """Where downloaded models live: <config>/local_agent/models."""
    return Path(config_dir).joinpath(*MODELS_SUBDIR)


def local_path(directory: Path, source: ModelSource) -> Path:
    """Where a Hub file is stored: <models>/<owner>--<name>/<filename>."""
    validate_source(source)
    return directory / source.repo_id.replace("/", "--") / Path(*source.filename.split("/"))


def part_path(target: Path, remote: RemoteFile) -> Path:
    """Return the partial file of a download of remote to target."""
    return target.with_name(f"{target.name}.{remote.tag}.part")


def partial_bytes(target: Path, remote: RemoteFile) -> int:
    """Bytes of remote already downloaded (a resumable part), 0 when none."""
    try:
        return min(part_path(target, remote).stat().st_size, remote.size)
    except OSError:
        return 0


def free_space(path: Path) -> int:
    """Free bytes on the file system that holds path (or would hold it)."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free


def check_disk_space(target: Path, remote: RemoteFile) -> None:
    """Raise DiskFullError unless the rest of the download fits, with room to spare."""
    needed = remote.size - partial_bytes(target, remote)
    free = free_space(target.parent)
    if needed + DISK_RESERVE > free:
        raise DiskFullError(
            f"{format_bytes(needed)} needed, {format_bytes(free)} free",
            needed=format_bytes(needed + DISK_RESERVE),
            free=format_bytes(free),
            path=str(target.parent),
        )


def estimate_ram(size: int, n_ctx: int) -> int:
    """Memory a model of this file size needs with this context, in bytes (rough)."""
    return int(size * RAM_FACTOR) + n_ctx * RAM_PER_CONTEXT_TOKEN


# The first number a size is written in the next unit from ("9999 MB", then "10 GB").
_MOST_SHOWN: Final = 10_000


def format_bytes(size: float) -> str:
    """Sizes in decimal units as the Hub shows them, in whole numbers of at most four digits.

    No decimal mark and no thousands separator, as the other forms write numbers: the dialog's
    language is not known here, and "0.53 GB" read wrong wherever the comma is the decimal
    mark; "530 MB" reads right in each. A no-break space keeps the number with its unit.
    """
    for unit in ("B", "kB", "MB", "GB"):
        if abs(round(size)) < _MOST_SHOWN:
            return f"{round(size)}\N{NO-BREAK SPACE}{unit}"
        size /= 1000
    return f"{round(size)}\N{NO-BREAK SPACE}TB"


# Download -------------------------------------------------------------------------------------


class _Hasher(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


def _new_hasher(remote: RemoteFile) -> tuple[_Hasher, str] | None:
    """Return a hasher of the expected kind and the digest it must reach (None: no checksum)."""
    if remote.sha256:
        return hashlib.sha256(), remote.sha256
    if remote.git_sha1:
        # Git blob id: sha1 of "blob <size>\0" + content (small, non-LFS files).
        hasher = hashlib.sha1(f"blob {remote.size}\0".encode(), usedforsecurity=False)
        return hasher, remote.git_sha1
    return None


def _hash_file(path: Path, remote: RemoteFile, cancel: threading.Event) -> _Hasher | None:
    """Hash what path holds so far (to continue a resumed download)."""
    expected = _new_hasher(remote)
    if expected is None:
        return None
    hasher = expected[0]
    with path.open("rb") as handle:
        while block := handle.read(CHUNK_SIZE):
            if cancel.is_set():
                raise DownloadCancelledError
            hasher.update(block)
    return hasher


def file_matches(path: Path, remote: RemoteFile, cancel: threading.Event | None = None) -> bool:
    """Whether path holds exactly the remote file (size, then checksum)."""
    try:
        if path.stat().st_size != remote.size:
            return False
    except OSError:
        return False
    expected = _new_hasher(remote)
    if expected is None:
        return True
    hasher = _hash_file(path, remote, cancel or threading.Event())
    return hasher is not None and hasher.hexdigest() == expected[1]


type ProgressCallback = Callable[[int, int], None]


class _PartFile:
    """The partial file being written, its byte count and running checksum."""

    def __init__(self, path: Path, remote: RemoteFile, cancel: threading.Event) -> None:
        self.remote = remote
        if path.exists() and path.stat().st_size > remote.size:
            path.unlink()
        path.touch()
        self.hasher = _hash_file(path, remote, cancel)
        self.handle: BinaryIO = path.open("ab")
        self.done = self.handle.tell()

    def restart(self) -> None:
        """Drop what was written (the server ignored a Range request)."""
        self.handle.seek(0)
        self.handle.truncate()
        self.done = 0
        fresh = _new_hasher(self.remote)
        self.hasher = fresh[0] if fresh is not None else None

    def write(self, chunk: bytes) -> None:
        if self.done + len(chunk) > self.remote.size:
            raise ChecksumMismatchError(f"more than the expected {self.remote.size} bytes")
        with self._full_disk_said():
            self.handle.write(chunk)
        if self.hasher is not None:
            self.hasher.update(chunk)
        self.done += len(chunk)

    @contextlib.contextmanager
    def _full_disk_said(self) -> Iterator[None]:
        """Raise a full disk (or quota) as DiskFullError; any other OSError as it is."""
        try:
            yield
        except OSError as err:
            if err.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            raise DiskFullError(
                str(err),
                needed=format_bytes(self.remote.size - self.done),
                free=format_bytes(0),
                path=str(Path(self.handle.name).parent),
            ) from err

    def close(self) -> None:
        """Write out what is buffered and close the part (it stays for a later resume).

        The disk can fill while the buffer is written out here too: DiskFullError then.
        """
        with self._full_disk_said():
            try:
                self.handle.flush()
                os.fsync(self.handle.fileno())
            finally:
                self.handle.close()  # closes the file even when its last flush fails

    def abandon(self) -> None:
        """Close the part after a failed transfer, keeping that failure the one raised.

        What the buffer still held is lost where the disk is full: the part on disk is a
        shorter, still valid beginning of the file (a resume hashes what it holds).
        """
        with contextlib.suppress(OSError, ModelStoreError):
            self.close()


def download(
    remote: RemoteFile,
    target: Path,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """Download remote to target, resuming a part left by an earlier attempt; verify; rename.

    progress(done, total) is called from this thread as bytes arrive. Setting cancel stops the
    download (DownloadCancelledError) and keeps the part.
    """
    cancel = cancel or threading.Event()
    report = progress or (lambda _done, _total: None)
    target.parent.mkdir(parents=True, exist_ok=True)
    if file_matches(target, remote, cancel):
        report(remote.size, remote.size)
        return target
    path = part_path(target, remote)
    for stale in target.parent.glob(f"{_glob_escape(target.name)}.*.part"):
        if stale != path:
            stale.unlink(missing_ok=True)
    check_disk_space(target, remote)
    if _new_hasher(remote) is None:
        _LOGGER.warning(
            "The Hub gave no checksum for %s/%s: only its size is verified",
            remote.source.repo_id,
            remote.source.filename,
        )
    part = _PartFile(path, remote, cancel)
    try:
        _fill(part, report, cancel)
    except BaseException:
        part.abandon()
        raise
    part.close()
    _verify(path, part)
    path.replace(target)
    return target


def _fill(part: _PartFile, report: ProgressCallback, cancel: threading.Event) -> None:
    """Transfer until the part is complete, resuming after dropped connections."""
    failures = 0
    report(part.done, part.remote.size)
    while part.done < part.remote.size:
        try:
            _transfer(part, report, cancel)
        except (httpx2.TransportError, httpx2.StreamError) as err:
            failures += 1
            if failures > MAX_RETRIES:
                detail = str(err) or type(err).__name__
                if part.done:
                    _LOGGER.warning(
                        "Download of %s broke off: %s", part.remote.source.filename, detail
                    )
                    raise DownloadInterruptedError(
                        detail, received=format_bytes(part.done)
                    ) from err
                raise hub_unreachable(err) from err
            _LOGGER.info(
                "Download of %s interrupted at %s (%s); resuming",
                part.remote.source.filename,
                format_bytes(part.done),
                err,
            )
            if cancel.wait(RETRY_WAIT):
                raise DownloadCancelledError from err


def _glob_escape(name: str) -> str:
    """Escape glob characters in a file name."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def _verify(path: Path, part: _PartFile) -> None:
    remote = part.remote
    size = path.stat().st_size
    if size != remote.size:
        path.unlink(missing_ok=True)
        raise ChecksumMismatchError(f"{size} bytes received, {remote.size} expected")
    expected = _new_hasher(remote)
    if part.hasher is not None and expected is not None:
        actual = part.hasher.hexdigest()
        if actual != expected[1]:
            path.unlink(missing_ok=True)
            raise ChecksumMismatchError(f"checksum {actual[:16]}…, expected {expected[1][:16]}…")


def _transfer(part: _PartFile, report: ProgressCallback, cancel: threading.Event) -> None:
    """Stream the rest of the file into the part (one HTTP request)."""
    headers = {"Accept-Encoding": "identity"}
    if part.done:
        headers["Range"] = f"bytes={part.done}-"
    try:
        with get_session().stream(
            "GET",
            part.remote.url,
            headers=headers,
            follow_redirects=True,
            timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT,
        ) as response:
            hf_raise_for_status(response)
            if part.done and response.status_code != 206:
                part.restart()
            # Chunks as they arrive: a connection that drops loses nothing already received.
            for chunk in response.iter_bytes():
                if cancel.is_set():
                    raise DownloadCancelledError
                part.write(chunk)
                report(part.done, part.remote.size)
    except HfHubHTTPError as err:
        raise _hub_error(err) from err
