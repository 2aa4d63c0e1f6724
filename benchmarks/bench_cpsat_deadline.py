"""Does CP-SAT's time limit hold before and during its search? Wall and CPU seconds of
``CPSatSolver.solve`` under a time limit, against the engine before issue 37 (its data stage
without deadline checks, its full presolve on models of many capture literals), in one run.

Cases: a synthetic table of 300,000 distinct rows x 40 antecedents under 0.001 s and 1 s (the
data stage: ``satisfied_sets``), and with ``--adult`` Adult at ``max_length=3`` under 10 s
(CP-SAT's presolve: ``LIGHT_PRESOLVE_LITERALS``). ``over`` is wall minus the limit; the target
is ``over <= 1`` on an idle core. Wall seconds depend on the machine's load: on a shared
machine compare the CPU seconds too.

Usage::

    python benchmarks/bench_cpsat_deadline.py
    FAIRLIST_DATA_HOME=../shared/data python benchmarks/bench_cpsat_deadline.py --adult
"""

from __future__ import annotations

import argparse
import math
import time
from contextlib import contextmanager

import numpy as np


def synthetic(n: int, m: int, time_limit: float):
    from fairlist.solvers import Limits, Problem

    rng = np.random.default_rng(0)
    X = (rng.random((n, m)) < 0.3).astype(np.uint8)
    y, groups = rng.integers(0, 2, n), rng.integers(0, 2, n)
    return Problem(
        X, y, groups, epsilon=0.05, lam=0.001, max_length=3, limits=Limits(time_limit=time_limit)
    )


def adult(time_limit: float):
    from fairlist import FairRuleListClassifier, load_adult

    data = load_adult()
    clf = FairRuleListClassifier(engine="cpsat", max_length=3, time_limit=None, epsilon=0.05)
    problem = clf.prepare(data.X, data.y, data.protected_mask, start=time.perf_counter())
    from fairlist.solvers import Limits

    return problem.with_limits(Limits(time_limit=time_limit, max_nodes=None))


@contextmanager
def before_issue_37():
    """The engine as it was: its data stage without a deadline check (a numpy call per
    pattern), the light presolve by constraint count only."""
    from fairlist.solvers import cpsat
    from fairlist.solvers.cpsat_data import ModelData, aggregate, integer_weights

    def of(cls, problem, max_length, deadline=None):  # ModelData.of before issue 37
        weights = integer_weights(problem)
        patterns, counts = aggregate(problem, weights)
        sat_sets = [np.flatnonzero(row).tolist() for row in patterns]
        K = min(int(max_length), problem.n_antecedents)
        return cls(patterns, counts, sat_sets, K, weights)

    saved = ModelData.__dict__["of"], cpsat.LIGHT_PRESOLVE_LITERALS
    ModelData.of, cpsat.LIGHT_PRESOLVE_LITERALS = classmethod(of), math.inf
    try:
        yield
    finally:
        ModelData.of, cpsat.LIGHT_PRESOLVE_LITERALS = saved


def run(problem, time_limit: float) -> tuple[float, float, str]:
    from fairlist.solvers.cpsat import CPSatSolver

    wall, cpu = time.perf_counter(), time.process_time()
    result = CPSatSolver().solve(problem)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    where = result.stats.get("build_stopped_in") or "search"
    return wall, cpu, f"{result.stop_reason} ({where})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--adult", action="store_true", help="also Adult, max_length 3, 10 s")
    args = parser.parse_args()
    cases = [(f"{args.rows:,} x 40", t, synthetic(args.rows, 40, t)) for t in (0.001, 1.0)]
    if args.adult:
        cases.append(("adult K=3", 10.0, adult(10.0)))
    print(f"{'case':16} {'limit':>6} {'engine':7} {'wall':>6} {'cpu':>6} {'over':>6}  stop")
    for name, limit, problem in cases:
        walls = {}
        for engine in ("before", "now"):
            with before_issue_37() if engine == "before" else _nothing():
                wall, cpu, stop = run(problem, limit)
            walls[engine] = wall
            over = wall - limit
            print(f"{name:16} {limit:6g} {engine:7} {wall:6.2f} {cpu:6.2f} {over:6.2f}  {stop}")
        print(f"{'':16} {'':6} ratio   {walls['before'] / walls['now']:6.1f}x")


@contextmanager
def _nothing():
    yield


if __name__ == "__main__":
    main()
