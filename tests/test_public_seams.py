"""Public seams (issue 38 item 5): the modules that drive another module's object reach it
through public names only, and the public entries they use do what the private ones did."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import fairlist
from fairlist.estimator import FairRuleListClassifier
from fairlist.rashomon import rashomon_set
from fairlist.solvers import Problem
from fairlist.solvers.bnb import BnBSolver

PACKAGE = Path(fairlist.__file__).parent

#: Private attributes that modules once reached across a module boundary.
REACHED = {"_prepare", "_config", "_run", "_single_keep", "_negated", "_pairs"}


def private_reaches(path: Path) -> set[str]:
    """The attributes of ``REACHED`` read on anything but ``self``/``cls`` in ``path``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in REACHED
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        ):
            found.add(node.attr)
    return found


def test_rashomon_and_export_use_public_entries_only():
    for module in ("rashomon.py", "export.py"):
        assert private_reaches(PACKAGE / module) == set(), module


def test_the_public_rashomon_entry_matches_the_set():
    rng = np.random.default_rng(5)
    X = (rng.random((60, 4)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ (rng.random(60) < 0.2)).astype(int)
    g = rng.random(60) < 0.5
    problem = FairRuleListClassifier(lam=0.02, max_length=2).prepare(X, y, g)
    assert isinstance(problem, Problem) and problem.n_samples == 60
    raw, kept, representative = BnBSolver(policy="bfs").solve_rashomon(problem, 0.05, None)
    found = rashomon_set(X, y, g, lam=0.02, max_length=2, delta=0.05)
    assert len(kept) == 4 and len(representative) == 4
    assert len(found) > 1
    ours = np.sort(np.asarray(raw["rashomon_objectives"]))
    np.testing.assert_allclose(ours, np.sort(np.asarray(found.objectives)))


def test_the_study_modules_import_no_private_name_of_each_other():
    """Issue 38 item 5: ten private names crossed the study/ submodules."""
    crossing = []
    for path in (PACKAGE / "study").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                crossing += [
                    (path.name, a.name)
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert crossing == []
