"""The portable bit helpers of the C++ core (``native/include/fairlist/portable.hpp``).

``native/tests/portable_check.cpp`` compares ``popcount64`` and ``ctz64`` (on the path this
compiler selects) with their plain C++ fallbacks and a bit-by-bit count on a million words. It is
compiled here three ways: C++17 with the compiler's builtins, C++17 with
``FAIRLIST_PORTABLE_BUILTINS=1`` (the fallbacks everywhere, what ``meson setup
-Dportable_builtins=true`` gives the whole core) and C++20 (``std::popcount``). The compiler is
``$CXX``, else ``c++``; without one the tests are skipped.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

NATIVE = Path(__file__).resolve().parents[1] / "native"
CXX = shlex.split(os.environ.get("CXX", "c++"))


@pytest.mark.skipif(shutil.which(CXX[0]) is None, reason=f"no C++ compiler ({CXX[0]})")
@pytest.mark.parametrize(
    ("std", "defines", "path"),
    [
        ("c++17", [], "gnu"),
        ("c++17", ["-DFAIRLIST_PORTABLE_BUILTINS=1"], "fallback"),
        ("c++20", [], "std"),
    ],
    ids=["builtins", "fallback", "cxx20"],
)
def test_helpers_agree_with_fallback(tmp_path, std, defines, path):
    exe = tmp_path / "portable_check"
    build = subprocess.run(
        [
            *CXX,
            f"-std={std}",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            *defines,
            f"-I{NATIVE / 'include'}",
            str(NATIVE / "tests" / "portable_check.cpp"),
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if build.returncode and std == "c++20" and "c++20" in build.stderr:
        pytest.skip(f"{CXX[0]} has no -std=c++20")
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.split() == [f"path={path}", "words=1000320"]
