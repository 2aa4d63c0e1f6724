"""The suffix fronts of benchmarks/bench_suffix_fronts.py (issue 23) against enumeration.

Its figures in docs/performance.md rest on the front being exact: for an uncaptured set and
r = 0..3, the number of completions enumerated, and every metric count vector a completion of
at most r more rules (each capturing something new) reaches, with the least errors + lam N
rules, and nothing else; and on the bucketed bound never exceeding the exact one.  Checked on
small random data against every list of distinct rules.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_suffix_fronts import bucket_loss, front, gaps_of, per_class  # noqa: E402
from test_bench_gaps import _classes  # noqa: E402


def _brute(cl, mc, er, unc, r, lam_n) -> dict:
    """Key -> least cost over every completion of ``unc`` by at most ``r`` distinct rules."""
    out: dict = {"lists": 0}

    def walk(rest, c, cost, left):
        out["lists"] += 2  # this rule list, either default label
        for q in (0, 1):
            vec = np.rint(c + q * mc[rest].sum(0)).astype(int)
            key = (int(vec[0]), int(vec[1]))
            out[key] = min(out.get(key, np.inf), cost + er[rest].sum(0)[q])
        if left == 0:
            return
        for a in range(cl.rules.shape[0]):
            cap = rest & cl.rules[a]
            if cap.any():
                for p in (0, 1):
                    walk(
                        rest & ~cap,
                        c + p * mc[cap].sum(0),
                        cost + er[cap, p].sum() + lam_n,
                        left - 1,
                    )

    walk(unc, np.zeros(2), 0.0, r)
    return out


@pytest.mark.parametrize("metric", ["SP", "EOpp"])
@pytest.mark.parametrize("seed", [0, 1])
def test_front_matches_enumeration(seed, metric):
    cl = _classes(seed, weighted=False)
    mc, er = per_class(cl, metric)
    rng = np.random.default_rng(seed)
    unc = rng.random(len(cl.counts)) < 0.7
    lam_n = 0.02 * cl.n
    for r in range(4):
        keys, cost, n_enum = front(cl, mc, er, unc, r, lam_n)
        got = {(int(k >> 24), int(k & ((1 << 24) - 1))): c for k, c in zip(keys, cost, strict=True)}
        want = _brute(cl, mc, er, unc, r, lam_n)
        assert n_enum == want.pop("lists")
        assert got.keys() == want.keys()
        assert all(np.isclose(got[k], want[k]) for k in want)
        prefixes = [(x, 3.0) for x in rng.uniform(-0.3, 0.3, 20)]
        denom = mc.sum(0)
        _, rows = bucket_loss(keys, cost, denom, prefixes, 0.05, 0.05 / 3, cl.n, 0.02, 1)
        assert all(approx <= exact + 1e-12 for exact, approx in rows)
        assert any(np.isfinite(exact) for exact, _ in rows)
        exact_min = [
            min(
                (
                    c
                    for k, c in zip(keys, cost, strict=True)
                    if abs(x + gaps_of(k, denom)) <= 0.05 + 1e-9
                ),
                default=np.inf,
            )
            for x, _ in prefixes
        ]
        assert np.allclose([e for e, _ in rows], [(3.0 + m) / cl.n + 0.02 for m in exact_min])
