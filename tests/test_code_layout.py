"""The README's code layout lists every module of the integration with its first docstring line."""

from __future__ import annotations

import ast
from pathlib import Path
import re

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "custom_components" / "local_agent"


def _summary(path: Path) -> str:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return docstring.strip().split("\n", 1)[0]


def _lines(folder: Path, depth: int) -> list[str]:
    indent = "    " * depth
    lines = [
        f"{indent}{path.name}  # {_summary(path)}"
        for path in sorted(folder.glob("*.py"))
        if not (depth and path.name == "__init__.py")
    ]
    for sub in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
        lines.append(f"{indent}{sub.name}/  # {_summary(sub / '__init__.py')}")
        lines.extend(_lines(sub, depth + 1))
    return lines


def expected_layout() -> str:
    """The code-layout block as the README must show it."""
    return "\n".join(_lines(PACKAGE, 0))


def test_readme_code_layout_matches_the_modules() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"### Code layout\n.*?```text\n(.*?)\n```", readme, re.DOTALL)
    assert match, "README.md has no code layout block"
    assert match.group(1) == expected_layout()


def test_every_module_says_what_it_is_for() -> None:
    missing = [
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py") if not _summary(path)
    ]
    assert not missing


def _imported_modules(path: Path) -> set[str]:
    """Every module the file imports, relative imports made absolute."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_the_safety_package_decides_and_never_reaches_the_runner() -> None:
    """The gate decides (a verdict, the action it holds); home/runner.py alone runs calls."""
    runner = "custom_components.local_agent.home.runner"
    reaching = [
        str(path.relative_to(PACKAGE))
        for path in sorted((PACKAGE / "safety").rglob("*.py"))
        if any(module.startswith(runner) for module in _imported_modules(path))
    ]
    assert reaching == []
