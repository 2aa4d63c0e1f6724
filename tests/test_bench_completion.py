"""The CP-SAT completion model of benchmarks/bench_completion_gaps.py against enumeration.

Its figures in docs/performance.md rest on one claim: for a prefix, the model's optimum is the
best fair completion (the prefix's counts fixed, the cap on the whole list) of at most ``more``
further rules, and with a cutoff it proves "none below the cutoff" exactly.  Checked on small
random data against the enumeration of bench_bound_gaps.py (one and two more rules) plus the
prefix with a new default (no more rules).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
pytest.importorskip("ortools")
from bench_bound_gaps import (  # noqa: E402
    Classes,
    Prefix,
    exact_short,
    exact_three,
    fair,
    rate_rows,
)
from bench_completion_gaps import best_completion, clipped  # noqa: E402


def _frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n, m = 70, 6
    g = rng.random(n) < 0.4
    x = (rng.random((n, m)) < 0.35).astype(np.uint8)
    y = ((x[:, 0] | (rng.random(n) < 0.3)) ^ (rng.random(n) < 0.1)).astype(np.uint8)
    cols = {"g": g, "h": ~g} | {f"a{j}": x[:, j] for j in range(m)} | {"y": y}
    return pd.DataFrame(cols)


def _no_more_rules(cl, gaps, eps, lam, pre) -> float:
    """The prefix followed by a default of either label: its best fair objective."""
    rest = cl.counts[~pre.captured].sum(axis=0)
    best = np.inf
    for q in (0, 1):
        if fair(gaps, pre.pos + q * rest, eps):
            err = pre.err + rest[:, 1 - q].sum()
            best = min(best, err / cl.n + lam * len(pre.rules))
    return best


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("metric", ["SP", "EOpp"])
def test_completion_model_matches_enumeration(seed, metric):
    cl = Classes(_frame(seed))
    gaps = rate_rows(metric, cl.group_label)
    rng = np.random.default_rng(seed)
    pre = Prefix(cl)
    for depth in range(3):
        for eps, lam in ((0.1, 0.02), (0.03, 0.005)):
            e1, e2 = exact_short(cl, gaps, eps, lam, pre)
            want = min(e2, _no_more_rules(cl, gaps, eps, lam, pre))
            low, found, exact = best_completion(cl, gaps[0], eps, lam, pre, 2, 20.0, np.inf)
            assert exact, (depth, eps, lam)
            assert low == pytest.approx(want, abs=1e-12)
            if np.isfinite(want):  # the cutoff: nothing strictly below ``want``
                assert best_completion(cl, gaps[0], eps, lam, pre, 2, 20.0, want)[:1] == (want,)
                low, found, exact = best_completion(
                    cl, gaps[0], eps, lam, pre, 2, 20.0, want + 1e-4
                )
                assert exact and low == pytest.approx(want, abs=1e-12)
        nxt = None
        while nxt is None:
            nxt = pre.child(cl, int(rng.integers(cl.rules.shape[0])), int(rng.integers(2)))
        pre = nxt


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("metric", ["SP", "EOpp"])
def test_clipped_branch_and_bound_matches_enumeration(seed, metric):
    """clipped(cut, more=3) = min(cut, best of 1..3 more rules): the enumeration of
    bench_bound_gaps.exact_three, with no cut and with cuts around the true value."""
    cl = Classes(_frame(seed))
    gaps = rate_rows(metric, cl.group_label)
    rng = np.random.default_rng(seed)
    pre = Prefix(cl)
    for _ in range(2):
        for eps, lam in ((0.1, 0.02), (0.03, 0.002)):
            e3 = exact_three(cl, gaps, eps, lam, pre, exact_short(cl, gaps, eps, lam, pre)[0])
            assert clipped(cl, gaps, eps, lam, np.inf, pre, 3) == pytest.approx(e3, abs=1e-12)
            if np.isfinite(e3):
                for cut in (e3 - 0.01, e3, e3 + 0.01):
                    got = clipped(cl, gaps, eps, lam, cut, pre, 3)
                    assert got == pytest.approx(min(cut, e3), abs=1e-12)
        nxt = None
        while nxt is None:
            nxt = pre.child(cl, int(rng.integers(cl.rules.shape[0])), int(rng.integers(2)))
        pre = nxt
