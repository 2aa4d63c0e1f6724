"""A source folder without the compiled core gives a message that says what to do.

After a plain ``pip install .``, Python run from the repository root imports the source folder
``fairlist/`` (the working directory comes first on ``sys.path``), where ``_core`` was never
built. ``python -S`` keeps the site packages (and the editable install's import hook) out, so a
copy of the source folder plays that role here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "fairlist"


def _source_copy(root: Path, checkout: bool) -> Path:
    shutil.copytree(SOURCE, root / "fairlist", ignore=shutil.ignore_patterns("*.so", "*.pyd"))
    if checkout:
        (root / "meson.build").write_text("project('fairlist')\n")
    return root


@pytest.mark.parametrize("command", [["-c", "import fairlist"], ["-m", "fairlist", "--help"]])
def test_source_folder_without_the_core_says_what_to_do(tmp_path, command):
    root = _source_copy(tmp_path, checkout=True)
    run = subprocess.run(
        [sys.executable, "-S", *command], cwd=root, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert "ModuleNotFoundError" not in run.stderr
    assert "ImportError: fairlist's compiled core (fairlist._core) is missing from" in run.stderr
    assert "source checkout, which shadows the installed package: run from another" in run.stderr
    assert "pip install --no-build-isolation -e ." in run.stderr


def test_installed_package_without_the_core_says_reinstall(tmp_path):
    root = _source_copy(tmp_path, checkout=False)
    run = subprocess.run(
        [sys.executable, "-S", "-c", "import fairlist"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert "The extension was not built: reinstall fairlist" in run.stderr
