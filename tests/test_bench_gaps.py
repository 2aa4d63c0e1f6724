"""The cover bounds of benchmarks/bench_bound_gaps.py (issue 23) against enumeration.

Their figures in docs/performance.md rest on two claims: for a prefix, each cover bound (the
surplus cover, with pairs, with net gains, and the cover LP) is at most the best objective of a
fair completion by one or more further rules, of any length; and it is never below the class
bound with lookahead.  The cover bound's early stop in r is checked against the minimum over
every r.  Checked on small random data, with and without integer class weights, for
the root and every prefix of one rule, against every list of distinct antecedents.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_bound_gaps import Classes, Cover, Prefix, class_program, fair, rate_rows  # noqa: E402


def _classes(seed: int, weighted: bool) -> Classes:
    rng = np.random.default_rng(seed)
    n, m = 60, 5
    g = rng.random(n) < 0.45
    x = (rng.random((n, m)) < 0.4).astype(np.uint8)
    y = ((x[:, 0] & ~x[:, 1] | (rng.random(n) < 0.25)) ^ (rng.random(n) < 0.15)).astype(np.uint8)
    cols = {"g": g, "h": ~g} | {f"a{j}": x[:, j] for j in range(m)} | {"y": y}
    cl = Classes(pd.DataFrame(cols))
    if weighted:  # integer weights per (class, group, label) cell: the class LP rounds up
        cl.counts = cl.counts * rng.integers(1, 4, cl.counts.shape)
        cl.n = float(cl.counts.sum())
        cl.group_label = cl.counts.sum(axis=0)
    return cl


def _best_longer(cl, gaps, eps, lam, pre: Prefix) -> float:
    """Best fair objective over the completions of ``pre`` by one or more further rules."""
    best = np.inf
    for a in range(cl.rules.shape[0]):
        for p in (0, 1):
            ch = pre.child(cl, a, p)
            if ch is None:
                continue
            rest = cl.counts[~ch.captured].sum(axis=0)
            for q in (0, 1):
                if fair(gaps, ch.pos + q * rest, eps):
                    best = min(best, (ch.err + rest[:, 1 - q].sum()) / cl.n + lam * len(ch.rules))
            best = min(best, _best_longer(cl, gaps, eps, lam, ch))
    return best


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("metric", ["SP", "EOpp"])
def test_cover_bounds_below_best_completion(seed, metric, weighted):
    cl = _classes(seed, weighted)
    gaps = rate_rows(metric, cl.group_label)
    root = Prefix(cl)
    prefixes = [root] + [
        ch for a in range(cl.rules.shape[0]) for p in (0, 1) if (ch := root.child(cl, a, p))
    ]
    risen = 0
    for eps, lam in ((0.2, 0.01), (0.05, 0.03), (0.02, 0.08)):
        for pre in prefixes:
            d, unc = len(pre.rules), ~pre.captured
            if not unc.any():
                continue
            lp = class_program(cl, gaps, eps, pre.pos, unc, integral=False)
            if not np.isfinite(lp):
                continue
            lp = np.ceil(lp - 1e-7)
            cls = (pre.err + lp) / cl.n + lam * (d + 1)
            want = _best_longer(cl, gaps, eps, lam, pre)
            cov = Cover(cl, pre)
            got = []
            for mode in ("top", "pair", "net"):
                got.append(cov.bound(pre.err, lp, cl.n, lam, d, mode)[0])
                every_r = min(
                    (pre.err + max(lp, cov.errors(r, mode))) / cl.n + lam * (d + r)
                    for r in range(1, cov.a + 1)
                )
                assert got[-1] == pytest.approx(every_r, abs=1e-12), (mode, eps, lam, pre.rules)
            got.append(cov.lp_bound(cl, gaps, eps, pre, lp, lam))
            for name, b in zip(("cover", "cover2", "coverN", "coverLP"), got, strict=True):
                assert cls - 1e-12 <= b <= want + 1e-12, (name, eps, lam, pre.rules, b, want)
            assert got[0] <= got[1] + 1e-12 <= got[2] + 2e-12
            risen += got[3] > cls + 1e-12
    assert risen  # the cover bound does rise above the class bound on some prefix
