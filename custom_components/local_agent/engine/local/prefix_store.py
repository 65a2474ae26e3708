"""Evaluated prompt prefixes saved on disk, so that a restart does not evaluate the home again.

A file holds one prefix (the system text and tools every turn of an agent starts with) as
llama.cpp's sequence state: the whole sequence as the context held it when it was saved
(attention cache and recurrent state), the recurrent state at the end of the prefix (a
checkpoint: the sequence may have gone on), and the prefix's tokens. Restoring sets the
whole sequence, cuts its attention cache back to the prefix and sets the checkpoint: the
context is then exactly as after evaluating the prefix.

Files are keyed by the model file (path, size, modification time), llama-cpp-python's
version, the settings that shape the state (flash attention) and the prefix text's hash. A
file is used only when its header names exactly that, its tokens are the prefix's tokens and
its checksum (SHA-256 over everything before it) matches; anything else is ignored, and a
damaged file deleted. The folder is bounded in bytes, the oldest files deleted first.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
import hashlib
import json
import logging
import os
from pathlib import Path
import struct
from typing import Final

_LOGGER = logging.getLogger(__name__)

MAGIC: Final = b"LAPREFX1"
FORMAT_VERSION: Final = 1
SUFFIX: Final = ".state"
_DIGEST = hashlib.sha256
_DIGEST_SIZE: Final = 32
_LENGTH: Final = struct.Struct("<Q")
# Written and read in pieces of this size: a cancel stops a save between two of them.
CHUNK_BYTES: Final = 16 * 2**20


@dataclass(frozen=True, slots=True)
class SavedPrefix:
    """A prefix read back from disk."""

    tokens: tuple[int, ...]
    # Views into one writable buffer, so that llama.cpp reads them without another copy.
    sequence_state: memoryview
    prefix_state: memoryview


class SaveCancelled(Exception):
    """A save stopped half-way (a request was waiting); nothing was kept."""


def prefix_key(text: str) -> str:
    """Identify a prefix by its text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PrefixStore:
    """One folder of saved prefixes for one model file and its settings."""

    def __init__(self, directory: Path, identity: str, limit_bytes: int) -> None:
        """identity: what the states depend on besides the prefix (model, runtime, settings)."""
        self.directory = directory
        self._identity = hashlib.sha256(identity.encode("utf-8")).hexdigest()
        self.limit_bytes = max(limit_bytes, 0)

    def path_for(self, key: str) -> Path:
        """Where the prefix with this key is (or would be) saved."""
        return self.directory / f"{self._identity[:16]}-{key[:32]}{SUFFIX}"

    def has(self, key: str) -> bool:
        """Whether a file for this prefix exists (its contents are checked only when loaded)."""
        return self.path_for(key).is_file()

    def load(self, key: str, tokens: Sequence[int]) -> SavedPrefix | None:
        """Return the saved prefix if its file is intact and exactly this prefix's; else None."""
        path = self.path_for(key)
        try:
            with path.open("rb") as file:
                data = bytearray(os.fstat(file.fileno()).st_size)
                if file.readinto(data) != len(data):
                    raise OSError("the file changed while it was read")
        except FileNotFoundError:
            return None
        except OSError as err:
            _LOGGER.debug("Cannot read the saved prefix %s: %s", path.name, err)
            return None
        saved, problem = _decode(data, self._identity, key)
        if saved is None:
            _LOGGER.info("Ignoring the saved prefix %s: %s", path.name, problem)
            if problem != "saved for another model or prefix":
                path.unlink(missing_ok=True)
            return None
        if saved.tokens != tuple(tokens):
            _LOGGER.info("Ignoring the saved prefix %s: its tokens differ", path.name)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept longest
        return saved

    def save(
        self,
        key: str,
        tokens: Sequence[int],
        sequence_state: memoryview,
        prefix_state: bytes,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Path | None:
        """Write the prefix (atomically), then delete the oldest files beyond the limit.

        None when it would not fit the limit at all. Raises SaveCancelled when cancelled()
        became true during the write, OSError when the disk refuses.
        """
        header = json.dumps(
            {
                "format": FORMAT_VERSION,
                "identity": self._identity,
                "prefix": key,
                "tokens": len(tokens),
                "sequence_bytes": len(sequence_state),
                "prefix_bytes": len(prefix_state),
            },
            sort_keys=True,
        ).encode("utf-8")
        size = (
            len(MAGIC)
            + _LENGTH.size
            + len(header)
            + 4 * len(tokens)
            + len(sequence_state)
            + len(prefix_state)
            + _DIGEST_SIZE
        )
        if size > self.limit_bytes:
            _LOGGER.debug("Not saving a prefix of %d bytes (limit %d)", size, self.limit_bytes)
            return None
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path_for(key)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            with temporary.open("wb") as file:
                digest = _DIGEST()
                for piece in _pieces(
                    MAGIC,
                    _LENGTH.pack(len(header)),
                    header,
                    struct.pack(f"<{len(tokens)}i", *tokens),
                    sequence_state,
                    prefix_state,
                ):
                    if cancelled():
                        raise SaveCancelled
                    digest.update(piece)
                    file.write(piece)
                file.write(digest.digest())
            temporary.replace(path)
        finally:
            temporary.unlink(missing_ok=True)
        self._bound(keep=path)
        return path

    def total_bytes(self) -> int:
        """Bytes the folder's saved prefixes take."""
        return sum(size for _, size, _ in self._files())

    def _files(self) -> list[tuple[Path, int, float]]:
        try:
            entries = list(self.directory.glob(f"*{SUFFIX}"))
        except OSError:
            return []
        files = []
        for path in entries:
            with contextlib.suppress(OSError):
                info = path.stat()
                files.append((path, info.st_size, info.st_mtime))
        return files

    def _bound(self, keep: Path) -> None:
        """Delete the least recently used files (of any model) until the folder fits."""
        files = sorted(self._files(), key=lambda item: item[2])
        total = sum(size for _, size, _ in files)
        for path, size, _ in files:
            if total <= self.limit_bytes:
                break
            if path != keep:
                path.unlink(missing_ok=True)
                total -= size


def _pieces(*parts: bytes | memoryview) -> Iterator[bytes | memoryview]:
    for part in parts:
        view = memoryview(part)
        for start in range(0, len(view), CHUNK_BYTES):
            yield view[start : start + CHUNK_BYTES]


def _count(header: dict[str, object], name: str) -> int:
    value = header.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(name)
    return value


def _decode(data: bytearray, identity: str, key: str) -> tuple[SavedPrefix | None, str]:
    """Check and split a file's bytes; (None, why) when it is not a usable saved prefix."""
    minimum = len(MAGIC) + _LENGTH.size + _DIGEST_SIZE
    if len(data) < minimum or not data.startswith(MAGIC):
        return None, "not a saved prefix"
    view = memoryview(data)
    body, digest = view[:-_DIGEST_SIZE], bytes(view[-_DIGEST_SIZE:])
    if _DIGEST(body).digest() != digest:
        return None, "damaged (checksum)"
    offset = len(MAGIC)
    (header_size,) = _LENGTH.unpack_from(data, offset)
    offset += _LENGTH.size
    try:
        header = json.loads(data[offset : offset + header_size])
    except ValueError:
        return None, "damaged (header)"
    offset += header_size
    if not isinstance(header, dict) or header.get("format") != FORMAT_VERSION:
        return None, "another format"
    if header.get("identity") != identity or header.get("prefix") != key:
        return None, "saved for another model or prefix"
    try:
        n_tokens, sequence_bytes, prefix_bytes = (
            _count(header, name) for name in ("tokens", "sequence_bytes", "prefix_bytes")
        )
    except ValueError:
        return None, "damaged (header)"
    if offset + 4 * n_tokens + sequence_bytes + prefix_bytes != len(body):
        return None, "damaged (sizes)"
    tokens = struct.unpack_from(f"<{n_tokens}i", data, offset)
    offset += 4 * n_tokens
    sequence_state = view[offset : offset + sequence_bytes]
    offset += sequence_bytes
    return SavedPrefix(tokens, sequence_state, view[offset : offset + prefix_bytes]), ""
