"""What CP-SAT's presolve guard costs, and what it prevents (fairlist.solvers.cpsat_model).

:func:`~fairlist.solvers.cpsat_model.guard_presolve` switches off the CP-SAT presolve step that
dropped fair lists from rows whose coefficients pass 2**31 (``presolve_inclusion_work_limit =
0``). Each model below is solved twice in the same run, guard off (the engine before) and on:
one row per model with both CPU times (``time.process_time``: CP-SAT's one worker runs in this
process) and objectives, then the totals and their ratio. A row marked ``WRONG`` is one whose
two optima differ; the guarded optimum is checked against brute force on the small models
(tests/reference.py), so the unguarded one is the wrong one there.

* ``compas``: COMPAS subsamples (the paper's binarized file; rows x antecedents, SP and PP,
  epsilon 0.05, at most 3 rules), unweighted: coefficients far below 2**31.
* ``weighted``: the seeded small problems of tests/test_cpsat.py's exact-weights test (20-40
  rows, 3 antecedents, weights of four decimals, two groups, SP / EOpp / EOdds).

Run from the repository root (venv active)::

    python benchmarks/bench_cpsat_presolve.py --seeds 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import fairlist.solvers.cpsat_model as cpsat_model
from fairlist.solvers import Problem
from fairlist.solvers.cpsat import CPSatSolver

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from bench_cpsat import load_compas, subsample  # noqa: E402


def solve_both(problem: Problem) -> tuple[tuple[float, float], tuple[float, float]]:
    """(CPU seconds, objective) guard off, then on."""
    out = []
    for guard in (False, True):
        cpsat_model.PRESOLVE_GUARD = guard
        start = time.process_time()
        res = CPSatSolver(num_workers=1).solve(problem)
        out.append((time.process_time() - start, res.objective))
    cpsat_model.PRESOLVE_GUARD = True
    return out[0], out[1]


def weighted_problems(n_seeds: int):
    from reference import random_group_problem

    for seed in range(n_seeds):
        rng = np.random.default_rng(seed)
        metric = ("SP", "EOpp", "EOdds")[seed % 3]
        n = int(rng.integers(20, 41))
        base = random_group_problem(rng, n=n, m=3, k=2, metric=metric, lam=0.01, max_length=2)
        weights = np.round(rng.uniform(0.05, 3.0, n), 4)
        epsilon = float(rng.choice([0.05, 0.1, 0.14, 0.2, 0.3]))
        yield f"seed {seed} {metric}", base.replace(sample_weight=weights, epsilon=epsilon)


def compas_problems(rows: list[int], antecedents: list[int]):
    data = load_compas()
    for n_rows in rows:
        for n_ants in antecedents:
            for metric in ("SP", "PP"):
                problem = subsample(
                    data, n_rows, n_ants, 1, metric=metric, epsilon=0.05, lam=0.005, max_length=3
                )
                yield f"compas {n_rows}x{n_ants} {metric}", problem


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 6000])
    parser.add_argument("--antecedents", type=int, nargs="+", default=[12, 24])
    parser.add_argument("--quiet", action="store_true", help="only the totals and wrong rows")
    args = parser.parse_args(argv)
    from reference import reference_solve

    for family, problems in (
        ("compas", compas_problems(args.rows, args.antecedents)),
        ("weighted", weighted_problems(args.seeds)),
    ):
        total_off = total_on = 0.0
        wrong = n = 0
        for name, problem in problems:
            (t_off, obj_off), (t_on, obj_on) = solve_both(problem)
            total_off += t_off
            total_on += t_on
            n += 1
            flag = ""
            if abs(obj_off - obj_on) > 1e-9:
                wrong += 1
                flag = "WRONG"
                if problem.n_samples <= 60:
                    ref = reference_solve(problem, problem.max_length).objective
                    flag += f" (brute force {ref:.6f})"
            if flag or not args.quiet:
                print(
                    f"{name:<28} off {t_off:7.3f} s {obj_off:.6f}   on {t_on:7.3f} s "
                    f"{obj_on:.6f} {flag}",
                    flush=True,
                )
        print(
            f"== {family}: {n} models, CPU guard off {total_off:.2f} s, on {total_on:.2f} s, "
            f"ratio on/off {total_on / max(total_off, 1e-9):.2f}; optima that differ: {wrong}",
            flush=True,
        )


if __name__ == "__main__":
    main()
