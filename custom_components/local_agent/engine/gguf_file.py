"""Reads the few header fields we need from a GGUF file without loading the model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import struct
from typing import BinaryIO

from .errors import ModelFileMissingError, NotAGgufError

GGUF_MAGIC = b"GGUF"
_STRING = 8
_ARRAY = 9
_SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_WANTED = ("general.architecture", "general.name", "general.size_label", "general.file_type")
_MAX_KEYS_SCANNED = 64


@dataclass(frozen=True, slots=True)
class GgufHeader:
    """What we learn from a GGUF header."""

    version: int
    tensor_count: int
    architecture: str | None
    name: str | None


def _read_exact(handle: BinaryIO, size: int) -> bytes:
    data = handle.read(size)
    if len(data) != size:
        raise EOFError
    return data


def _read_string(handle: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", _read_exact(handle, 8))
    return _read_exact(handle, length).decode("utf-8", errors="replace")


def _skip_value(handle: BinaryIO, value_type: int) -> None:
    if value_type == _STRING:
        (length,) = struct.unpack("<Q", _read_exact(handle, 8))
        handle.seek(length, 1)
    elif value_type == _ARRAY:
        item_type, count = struct.unpack("<IQ", _read_exact(handle, 12))
        if item_type in _SCALAR_SIZES:
            handle.seek(_SCALAR_SIZES[item_type] * count, 1)
        else:
            for _ in range(count):
                _skip_value(handle, item_type)
    else:
        handle.seek(_SCALAR_SIZES[value_type], 1)


def has_gguf_magic(path: Path) -> bool:
    """Return whether the file starts with GGUF's magic bytes. Blocking; raises OSError."""
    with path.open("rb") as handle:
        return handle.read(len(GGUF_MAGIC)) == GGUF_MAGIC


def read_gguf_header(path: Path) -> GgufHeader:
    """Return the architecture and name stored in a GGUF file. Blocking."""
    if not path.is_file():
        raise ModelFileMissingError(path)
    with path.open("rb") as handle:
        if handle.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            raise NotAGgufError(path)
        found: dict[str, str] = {}
        try:
            version, tensor_count, kv_count = struct.unpack("<IQQ", _read_exact(handle, 20))
            for _ in range(min(kv_count, _MAX_KEYS_SCANNED)):
                key = _read_string(handle)
                (value_type,) = struct.unpack("<I", _read_exact(handle, 4))
                if key in _WANTED and value_type == _STRING:
                    found[key] = _read_string(handle)
                else:
                    _skip_value(handle, value_type)
                if "general.architecture" in found and "general.name" in found:
                    break
        except (EOFError, KeyError, struct.error) as err:
            raise NotAGgufError(path) from err
    return GgufHeader(
        version=version,
        tensor_count=tensor_count,
        architecture=found.get("general.architecture"),
        name=found.get("general.name"),
    )
