"""Reads the few header fields we need from a GGUF file without loading the model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import re
import struct
from typing import BinaryIO
from typing import Final

from .errors import ModelFileMissingError
from .errors import NotAGgufError

GGUF_MAGIC = b"GGUF"
_UINT32 = 4
_STRING = 8
# The integer types a count may be stored as: uint32, int32, uint64, int64.
_INTEGERS: Final = {4: "<I", 5: "<i", 10: "<Q", 11: "<q"}
_ARRAY = 9
_SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_WANTED = ("general.architecture", "general.name", "general.size_label", "general.file_type")
_MAX_KEYS_SCANNED = 64
# "<architecture>.context_length": the context the model was trained for (n_ctx_train).
_CONTEXT_LENGTH: Final = ".context_length"


@dataclass(frozen=True, slots=True)
class GgufHeader:
    """What we learn from a GGUF header."""

    version: int
    tensor_count: int
    architecture: str | None
    name: str | None
    size_label: str | None = None
    file_type: int | None = None
    # The context the model was trained for; None when the header does not say.
    context_length: int | None = None

    @property
    def quantization(self) -> str | None:
        """Return how the weights are stored, as llama.cpp names it ("Q8_0", "Q4_K_M")."""
        return None if self.file_type is None else FILE_TYPES.get(self.file_type)

    def title(self) -> str | None:
        """Name the model as people do: its name, size and quantization.

        "Gemma 3 270m" (size label "270M", file type 15) reads "Gemma 3 270M Q4_K_M"; what the
        name already says is not repeated. None when the file has no name.
        """
        if not self.name or not self.name.strip():
            return None
        title = " ".join(self.name.split())
        for label in (self.size_label, self.quantization):
            if not label:
                continue
            pattern = re.compile(rf"(?<![\w.]){re.escape(label)}(?![\w.])", re.IGNORECASE)
            title = pattern.sub(label, title) if pattern.search(title) else f"{title} {label}"
        return title


# llama.cpp's file types (llama_ftype, written as general.file_type): the weights' storage.
FILE_TYPES: Final = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
    38: "MXFP4_MOE",
}


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
    """Return the architecture, name and trained context stored in a GGUF file. Blocking."""
    if not path.is_file():
        raise ModelFileMissingError(path)
    with path.open("rb") as handle:
        if handle.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            raise NotAGgufError(path)
        found: dict[str, str] = {}
        file_type: int | None = None
        # Each architecture's context length met, before the architecture is known.
        lengths: dict[str, int] = {}
        try:
            version, tensor_count, kv_count = struct.unpack("<IQQ", _read_exact(handle, 20))
            for _ in range(min(kv_count, _MAX_KEYS_SCANNED)):
                key = _read_string(handle)
                (value_type,) = struct.unpack("<I", _read_exact(handle, 4))
                if key in _WANTED and value_type == _STRING:
                    found[key] = _read_string(handle)
                elif key == "general.file_type" and value_type == _UINT32:
                    (file_type,) = struct.unpack("<I", _read_exact(handle, 4))
                elif key.endswith(_CONTEXT_LENGTH) and value_type in _INTEGERS:
                    shape = _INTEGERS[value_type]
                    size = struct.calcsize(shape)
                    (lengths[key],) = struct.unpack(shape, _read_exact(handle, size))
                else:
                    _skip_value(handle, value_type)
                architecture = found.get("general.architecture")
                has_length = f"{architecture}{_CONTEXT_LENGTH}" in lengths
                if len(found) + (file_type is not None) == len(_WANTED) and has_length:
                    break
        except (EOFError, KeyError, struct.error) as err:
            raise NotAGgufError(path) from err
    architecture = found.get("general.architecture")
    context_length = lengths.get(f"{architecture}{_CONTEXT_LENGTH}")
    return GgufHeader(
        version=version,
        tensor_count=tensor_count,
        architecture=architecture,
        name=found.get("general.name"),
        size_label=found.get("general.size_label"),
        file_type=file_type,
        context_length=context_length if context_length and context_length > 0 else None,
    )
