"""The core's lock annotations are live: Clang's thread-safety analysis rejects a lock left out.

``native/include/fairlist/thread_annotations.hpp`` gives the shared members of the C++ core their
guards (``GUARDED_BY``) and the methods the locks they need (``REQUIRES``; docs/design.md §8.3);
``.ci/clang`` builds the whole core with ``-Werror=thread-safety`` (meson option
``thread_safety``, §8.7). These tests compile small uses of the real headers with clang++ and
check that the analysis accepts the correct ones and rejects a frontier method called without
the frontier's lock, the map touched without a shard's lock and the two locks taken in the wrong
order, so that annotations that stopped meaning anything (a macro defined empty for clang, a
guard dropped) fail here and not only in a CI run. With GCC the same code compiles (the macros
are empty). Skipped without clang++ (or g++).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

INCLUDE = Path(__file__).resolve().parents[1] / "native" / "include"
CLANG = shutil.which("clang++")
GCC = shutil.which("g++")

HEADER = """
#include "fairlist/frontier.hpp"
using namespace fairlist;
"""

# Each case: a function body over a Frontier f, its FrontierLock l, Stats* s and ShardLocks m.
CORRECT = """
void f_held(Frontier& f, FrontierLock& l, Stats* s) {
    FrontierHold hold(l, s);
    if (!f.empty()) f.pop();
    hold.release();
    hold.acquire();
    f.untrack(0.0);
}
void f_order(FrontierLock& l, ShardLocks& m) {
    ShardHold shard(m, 0);
    FrontierHold hold(l, nullptr);
}
"""
# Each wrong use (its own function) and what clang says of it: the role the code lacks, or the
# order.
WRONG = {
    "void no_lock(Frontier& f) { f.pop(); }": "requires holding role 'frontier_lock'",
    """void released(Frontier& f, FrontierLock& l, Stats* s) {
        FrontierHold hold(l, s);
        hold.release();
        f.untrack(0.0);
    }""": "requires holding role 'frontier_lock'",
    """void reversed(FrontierLock& l, ShardLocks& m) {
        FrontierHold hold(l, nullptr);
        ShardHold shard(m, 0);
    }""": "role 'map_shard_lock' must be acquired before 'frontier_lock'",
}


def compile_snippet(compiler: str, tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    """Compiles HEADER + body with the flags of .ci/clang's build (syntax only)."""
    source = tmp_path / "snippet.cpp"
    source.write_text(HEADER + body, encoding="utf-8")
    flags = ["-Wthread-safety", "-Wthread-safety-beta", "-Werror=thread-safety"]
    if "clang" not in Path(compiler).name:
        flags = []
    return subprocess.run(
        [compiler, "-std=c++17", "-fsyntax-only", f"-I{INCLUDE}", *flags, str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.skipif(CLANG is None, reason="no clang++")
def test_clang_accepts_the_locked_uses(tmp_path):
    result = compile_snippet(CLANG, tmp_path, CORRECT)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(CLANG is None, reason="no clang++")
def test_clang_rejects_each_lock_left_out(tmp_path):
    result = compile_snippet(CLANG, tmp_path, "\n".join(WRONG))
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == len(WRONG), result.stderr  # one for each function
    for function, says in WRONG.items():
        name = function.split("(")[0].split()[-1]
        line = HEADER.count("\n") + "\n".join(WRONG).split(function)[0].count("\n") + 1
        last = line + function.count("\n")
        found = [e for e in errors if line <= int(e.split(":")[1]) <= last]
        assert len(found) == 1 and says in found[0], (name, result.stderr)


@pytest.mark.skipif(GCC is None, reason="no g++")
def test_gcc_ignores_the_annotations(tmp_path):
    result = compile_snippet(GCC, tmp_path, CORRECT + "\n".join(WRONG))
    assert result.returncode == 0, result.stderr
