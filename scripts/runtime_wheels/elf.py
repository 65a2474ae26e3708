"""What a shared library says about itself: machine, SONAME, NEEDED, RUNPATH, imported symbols."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elftools.elf.dynamic import DynamicSection
from elftools.elf.dynamic import DynamicTag
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection
from elftools.elf.gnuversions import GNUVerSymSection
from elftools.elf.sections import SymbolTableSection


@dataclass(frozen=True, slots=True)
class ElfInfo:
    """The dynamic-linking facts of one ELF file."""

    path: Path
    machine: str
    soname: str | None
    needed: tuple[str, ...]
    runpath: str | None
    # Undefined (imported) symbols, each with the version it asks for ("" when none).
    imports: tuple[tuple[str, str], ...]


def _imports(elf: ELFFile) -> tuple[tuple[str, str], ...]:
    dynsym = elf.get_section_by_name(".dynsym")
    if not isinstance(dynsym, SymbolTableSection):
        return ()
    versions: dict[int, str] = {}
    for section in elf.iter_sections():
        if isinstance(section, GNUVerNeedSection):
            for _, auxiliaries in section.iter_versions():
                for aux in auxiliaries:
                    versions[aux["vna_other"]] = aux.name
    versym = next((s for s in elf.iter_sections() if isinstance(s, GNUVerSymSection)), None)
    found = []
    for index, symbol in enumerate(dynsym.iter_symbols()):
        if not symbol.name or symbol["st_shndx"] != "SHN_UNDEF":
            continue
        if symbol["st_info"]["bind"] == "STB_WEAK":
            continue
        version = ""
        if versym is not None:
            version = versions.get(versym.get_symbol(index)["ndx"], "")
        found.append((symbol.name, version))
    return tuple(sorted(found))


def _tag_text(tag: DynamicTag, name: str) -> str:
    """A string-valued tag's text, which pyelftools sets as an attribute named after the tag."""
    return str(getattr(tag, name))


def read_elf(path: Path) -> ElfInfo:
    """Read PATH's dynamic section and imported symbols."""
    with path.open("rb") as stream:
        elf = ELFFile(stream)
        dynamic = next(s for s in elf.iter_sections() if isinstance(s, DynamicSection))
        needed: list[str] = []
        soname: str | None = None
        runpath: str | None = None
        for tag in dynamic.iter_tags():
            kind = tag.entry.d_tag
            if kind == "DT_NEEDED":
                needed.append(_tag_text(tag, "needed"))
            elif kind == "DT_SONAME":
                soname = _tag_text(tag, "soname")
            elif kind == "DT_RUNPATH" or (kind == "DT_RPATH" and runpath is None):
                runpath = _tag_text(tag, "runpath" if kind == "DT_RUNPATH" else "rpath")
        return ElfInfo(
            path=path,
            machine=elf["e_machine"],
            soname=soname,
            needed=tuple(needed),
            runpath=runpath,
            imports=_imports(elf),
        )
