"""No file of the project keeps a merge's conflict markers (a README once shipped both sides)."""

from __future__ import annotations

from pathlib import Path
import re

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("custom_components", "docs", "eval", "reports", "scripts", "testing", "tests", ".ci")
SUFFIXES = frozenset({".md", ".py", ".json", ".yaml", ".yml", ".toml", ".txt", ".sh", ""})
MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)|^={7}$", re.MULTILINE)


def _text_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "hacs.json", ROOT / "pyproject.toml"]
    for folder in FOLDERS:
        files.extend(
            path
            for path in (ROOT / folder).rglob("*")
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts
        )
    return files


def test_no_file_keeps_a_merge_conflict() -> None:
    conflicted = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary file without a suffix
        if MARKER.search(text):
            conflicted.append(str(path.relative_to(ROOT)))
    assert conflicted == []


def test_a_conflict_is_found() -> None:
    both_sides = "intro\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n"

    assert MARKER.search(both_sides)
    assert not MARKER.search("a heading\n=========\n<<<<<<<< not eight\n")
