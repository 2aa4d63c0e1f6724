"""The code's citations of the design page name sections that exist.

Comments and docstrings in ``fairlist/``, ``native/`` and ``tests/`` cite the design by section,
as ``docs/design.md`` followed by a section sign and a number (``3`` or ``3.3``). A section that
is renumbered or removed while something still cites it fails here, and so does a citation of
the old ``DESIGN.md`` that lived outside the repository. Each numbered heading of the page also
carries its stable target (``(design-s3-3)=`` above ``### 3.3``), the anchor a link uses.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
SCANNED = ("fairlist", "native", "tests")
SUFFIXES = {".py", ".pyx", ".pxd", ".hpp", ".cpp", ".h", ".md", ".build"}

HEADING = re.compile(r"^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s")
TARGET = re.compile(r"^\(design-s([\d-]+)\)=$")
CITATION = re.compile(r"docs/design\.md`*\s*\u00a7\s*(\d+(?:\.\d+)*)")
OLD_FILE = re.compile(r"(?<![\w/])" + "DESIGN" + r"\.md")


def sections() -> dict[str, int]:
    """The page's numbered sections (``"3"``, ``"3.3"``) and the line of each heading."""
    found: dict[str, int] = {}
    for number, line in enumerate(DESIGN.read_text(encoding="utf-8").splitlines(), 1):
        match = HEADING.match(line)
        if match:
            assert match.group(1) not in found, f"docs/design.md: section {match.group(1)} twice"
            found[match.group(1)] = number
    return found


def scanned_files() -> list[Path]:
    """The text files of fairlist/, native/ and tests/ that may cite the page (not this one)."""
    files = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and path != Path(__file__).resolve():
                files.append(path)
    return files


def citations() -> list[tuple[str, int, str]]:
    """(file, line, section) of every citation of the page."""
    out = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in CITATION.finditer(line):
                out.append((str(path.relative_to(ROOT)), number, match.group(1)))
    return out


def test_every_cited_section_exists():
    cited = citations()
    assert len(cited) >= 10, f"only {len(cited)} citations found: is the pattern still right?"
    known = sections()
    missing = [f"{f}:{line} cites \u00a7{s}" for f, line, s in cited if s not in known]
    assert not missing, (
        "docs/design.md has no such section (renumbered or removed? sections: "
        f"{', '.join(known)}):\n" + "\n".join(missing)
    )


def test_no_citation_of_the_old_design_file():
    old = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OLD_FILE.search(line):
                old.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not old, "cite docs/design.md, the design in the repository:\n" + "\n".join(old)


def test_every_numbered_section_has_its_stable_target():
    lines = DESIGN.read_text(encoding="utf-8").splitlines()
    known = sections()
    assert {"1", "3", "4", "6", "8"} <= set(known), "the sections the code cites by number"
    for section, number in known.items():
        above = [line for line in lines[: number - 1] if line.strip()][-1]
        match = TARGET.match(above.strip())
        assert match, f"docs/design.md:{number}: section {section} has no (design-s...)= target"
        assert match.group(1) == section.replace(".", "-"), (
            f"docs/design.md:{number}: section {section} has target design-s{match.group(1)}"
        )
