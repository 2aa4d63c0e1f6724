"""What a fit spends before its search, stage by stage, new against old in one run.

Run from the repository root::

    python benchmarks/bench_setup.py                      # all three tables
    python benchmarks/bench_setup.py --tables matrix --rows 50000

Stages, after the binarizer is fitted (its fit is timed once and printed apart: the antecedent
budget is the binarizer's business):

* ``prepare``: ``FairRuleListClassifier.prepare`` (the checks, the antecedents built from the
  fitted binarizer, the groups, the :class:`~fairlist.solvers.Problem`), the binarizer's fit
  replaced by the one fitted before. *Old* is the same ``prepare`` with the old pieces put
  back (:func:`old_stages`): the antecedents as the binarizer's DataFrame, 0/1 checked by masks
  (twice), every column factorized whole in the search for copies of the groups. The group
  codes' old loop over the rows (0.25 s at 200,000 rows) is not put back.
* ``merge``: the twin antecedents found (:func:`~fairlist.solvers.bnb.distinct_packed` on the
  packed columns; *old*: the loop over columns it replaced, kept below as
  :func:`loop_distinct_columns`), and the kept columns gathered (*old*: from the byte matrix,
  then packed).
* ``build``: the native search constructed (identical rows merged, bit sets laid out). The old
  native build is not in this binary: at 5b6dbf4 it took 7.1 CPU s on the 200,000 x 2,550
  matrix (check out that commit and run this script to see it).
* the labels' route (``--label-repeats``, 5 by default; 0 leaves it out): ``prepare`` with the
  labels checked and encoded once against the same ``prepare`` with the old route put back
  (:func:`old_encode_target`: scikit-learn's two target checks and an encoding, then the labels
  handed on to be encoded again by the binarizer and ``Problem.from_data``; the matrix 0/1
  checked a second time in ``Problem.__post_init__``), alternated, the least CPU seconds of
  each; on a raw table once with the labels as given and once as text (``yes``/``no``, as a
  CSV gives them), whose encoding costs more.
* ``first node``: the search run to its first node (``max_nodes=1``): the constant lists, the
  beam (``beam_seconds``) and the root. This is search, not set-up; it is shown so that the
  set-up can be read against it.

Figures are CPU seconds of this process (the machine may be shared; wall seconds beside) and
the peak resident memory during the stage (``/proc/self/clear_refs`` resets the peak before each
stage; where it cannot, the process's peak so far is shown, marked ``*``). The tables: the
synthetic census-like table (:func:`fairlist.synthetic.make_wide_table`, its ID-like columns
dropped), Adult (train + test, rows with a missing value dropped, as
:func:`fairlist.datasets.read_adult` reads it) and a pre-binarized 0/1 matrix of one-hot blocks
with twin and negated columns.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from fairlist import FairRuleListClassifier
from fairlist._core import BranchAndBound, pack_bits, pack_matrix
from fairlist._validation import encode_labels
from fairlist.binarize import Binarizer
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver, distinct_packed, engine_weights

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def loop_distinct_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The old ``distinct_columns``: a dictionary of each column's packed bytes, column by
    column (the reference the vectorised one is measured against)."""
    packed = np.packbits(np.asarray(X, dtype=bool), axis=0)
    kept: list[int] = []
    slot: dict[bytes, int] = {}
    position = np.empty(X.shape[1], dtype=np.intp)
    for j in range(X.shape[1]):
        position[j] = slot.setdefault(packed[:, j].tobytes(), len(kept))
        if position[j] == len(kept):
            kept.append(j)
    return np.asarray(kept, dtype=np.intp), position


def _peak_kib() -> tuple[int, bool]:
    """The process's peak resident memory (KiB) and whether it was reset before the stage."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]), True
    except OSError:
        pass
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss), False


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


@contextmanager
def stage(figures: dict[str, tuple[float, float, float, bool]], name: str):
    """Times the block (CPU and wall seconds) and its peak memory into ``figures[name]``."""
    gc.collect()
    reset = _reset_peak()
    cpu, wall = time.process_time(), time.perf_counter()
    yield
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak, ok = _peak_kib()
    figures[name] = (cpu, wall, peak / 1024, reset and ok)


# ------------------------------------------------------------------------------ the stages
def prefitted_route(fitted, *, encode: bool = False):
    """``fairlist.table.to_antecedents`` with the binarizer fitted before: its antecedents of
    X as the one uint8 matrix. ``encode``: the labels encoded as the binarizer's fit encodes
    them (the labels' share of its fit, for :func:`label_stages`)."""

    def to_antecedents(binarizer, X, y=None, *, deadline=None):
        if encode and y is not None:
            encode_labels(y, n_rows=len(X), require_two=False)
        matrix = fitted.transform(X, deadline=deadline, as_array=True)
        return fitted, matrix, [str(c) for c in fitted.get_feature_names_out()]

    return to_antecedents


def new_stages(est, X, y, sensitive, fitted) -> tuple[dict, dict]:
    """This code's stages; returns the figures and the search's stats."""
    figures: dict = {}
    route = prefitted_route(fitted)  # the binarizer fitted before (fit_transform, not fit)
    with stage(figures, "prepare"), mock.patch("fairlist.prepare.to_antecedents", route):
        problem = est.prepare(X, y, sensitive, start=time.perf_counter())
    with stage(figures, "merge"):
        packed = pack_matrix(problem.X)
        kept, _ = distinct_packed(packed)
        rules = packed if len(kept) == len(packed) else packed[kept]
    with stage(figures, "build"):
        search = _search(problem, rules)
    with stage(figures, "first node"):
        raw = search.run()
    stats = dict(raw["stats"], antecedents=problem.n_antecedents, kept=len(kept))
    return figures, stats


def old_as_binary(name, values, ndim, *, columns=None, hint=""):
    """The old ``as_binary``: 0/1 checked by masks over the whole array (two temporaries)."""
    arr = np.asarray(values)
    if arr.ndim != ndim or (arr.dtype != bool and ((arr != 0) & (arr != 1)).any()):
        raise AssertionError(f"{name} is not 0/1")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def old_to_antecedents(binarizer, X, y=None, *, deadline=None):
    """The old route: the antecedents as the binarizer's DataFrame (for a DataFrame X)."""
    fitted = binarizer.fit(X, y, deadline=deadline)
    return fitted, fitted.transform(X), [str(c) for c in fitted.get_feature_names_out()]


def old_stages(est, X, y, sensitive, fitted) -> dict:
    """The same ``prepare`` with the old pieces put back (the DataFrame route, the mask checks,
    every column factorized whole when looking for copies of the groups; the group codes' loop
    over rows is not put back), and the old merge (see the module docstring)."""
    figures: dict = {}
    fit = lambda self, *args, **kwargs: fitted  # noqa: E731
    with (
        stage(figures, "prepare"),
        mock.patch.object(Binarizer, "fit", fit),
        mock.patch("fairlist.prepare.to_antecedents", old_to_antecedents),
        mock.patch("fairlist.solvers.base.as_binary", old_as_binary),
        mock.patch("fairlist.sensitive._PREFIX_ROWS", None),
    ):
        problem = est.prepare(X, y, sensitive, start=time.perf_counter())
    with stage(figures, "merge"):
        kept, _ = loop_distinct_columns(problem.X)
        pack_matrix(np.ascontiguousarray(problem.X[:, kept]))
    return figures


class _Bare:
    """In place of ``fairlist.solvers.base._Checked``: ``from_data`` hands the bare arrays on,
    and ``Problem.__post_init__`` checks them again (the old second 0/1 pass over X)."""

    def __new__(cls, values):
        return values


def old_encode_target(y, n_rows, name="y", *, checked=False):
    """The old ``check_target``: scikit-learn's two target checks and an encoding, then the
    labels handed on as they are (the binarizer and ``Problem.from_data`` encode them again)."""
    check_classification_targets(y)
    type_of_target(y, input_name="y")
    encode_labels(y, name=name, n_rows=n_rows)
    return y


def label_stages(est, X, y, sensitive, fitted, repeats: int) -> dict:
    """``prepare`` with the labels' one route against the old one (the labels scanned and
    encoded in ``check_target``, the binarizer and ``from_data``, X 0/1-checked twice), both
    with the binarizer fitted before (its fit's use of the labels, their encoding, kept).
    Alternated ``repeats`` times; the least CPU seconds of each."""

    prefitted = prefitted_route(fitted, encode=True)
    old_route = (
        mock.patch("fairlist.prepare.encode_target", old_encode_target),
        mock.patch("fairlist.solvers.base._Checked", _Bare),
    )
    best: dict[str, tuple] = {}
    for _ in range(repeats):
        for name, patches in (("labels new", ()), ("labels old", old_route)):
            figures: dict = {}
            with contextlib.ExitStack() as stack:
                stack.enter_context(mock.patch("fairlist.prepare.to_antecedents", prefitted))
                for patch in patches:
                    stack.enter_context(patch)
                with stage(figures, "prepare"):
                    est.prepare(y=y, X=X, sensitive_features=sensitive, start=time.perf_counter())
            if name not in best or figures["prepare"][0] < best[name][0]:
                best[name] = figures["prepare"]
    return best


def report_labels(best: dict, labels: str = "labels as given") -> None:
    new, old = best["labels new"][0], best["labels old"][0]
    print(
        f"  prepare, the labels' route ({labels}; binarizer fitted before, least of the "
        "repeats): "
        f"once {new:.3f} CPU s, old (scanned 4x, encoded 3x + type_of_target 2x, X checked "
        f"twice) {old:.3f} CPU s: {old - new:+.3f} s saved, {old / new:.2f}x"
    )


def _search(problem: Problem, rules: np.ndarray) -> Any:
    weights = engine_weights(problem)
    config = BnBSolver()._config(Limits(max_nodes=1), problem.max_length)
    return BranchAndBound(
        rules,
        pack_bits(problem.y),
        np.ascontiguousarray(problem.groups, dtype=np.int32),
        weights.values,
        problem.n_samples,
        problem.n_groups,
        {
            "metric": int(problem.metric),
            "constrained": problem.constrained,
            "epsilon": float(problem.epsilon or 0.0),
            "lam": problem.lam,
        },
        config,
    )


# ------------------------------------------------------------------------------ the tables
def synthetic(rows: int, antecedents: int) -> tuple[Any, Any, str, Binarizer]:
    from fairlist.synthetic import make_wide_table

    t = make_wide_table(rows, seed=0)
    X = t.X.drop(columns=list(t.id_like))
    X["sex"] = t.sensitive
    return X, t.y, "sex", Binarizer(max_antecedents=antecedents, handle_missing="category")


def adult(data: Path, antecedents: int) -> tuple[Any, Any, str, Binarizer]:
    from fairlist.datasets import adult_table, read_adult

    raw = read_adult([data / "adult" / "adult.data", data / "adult" / "adult.test"])
    table = adult_table(raw)
    y = (table["income"] == ">50K").to_numpy().astype(np.int8)
    return table.drop(columns=["income"]), y, "gender", Binarizer(max_antecedents=antecedents)


def structured_matrix(rows: int, seed: int = 0) -> tuple[Any, Any, Any]:
    """A pre-binarized table: 40 one-hot blocks of 60 values (long-tailed), 50 twin and 100
    negated columns (2,550 antecedents), a 6 % positive label, two groups."""
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(40):
        values = rng.choice(60, size=rows, p=rng.dirichlet(np.full(60, 0.3)))
        blocks.append(np.eye(60, dtype=np.uint8)[values])
    X = np.concatenate(blocks, axis=1)
    X = np.concatenate([X, X[:, :50], 1 - X[:, 50:150]], axis=1)
    y = (rng.random(rows) < 0.06 + 0.3 * X[:, 0]).astype(np.uint8)
    groups = np.where(rng.random(rows) < 0.5, "F", "M")
    return X, y, groups


# ------------------------------------------------------------------------------ the report
def report(name: str, new: dict, old: dict, stats: dict, extra: str) -> None:
    print(f"\n{name}: {extra}")
    print(
        f"  {stats['antecedents']} antecedents ({stats['kept']} after twins), "
        f"{stats['n_classes']} sample classes, {stats['n_rows']} rows searched; first node: "
        f"{stats['nodes_expanded']} expanded, beam {stats['beam_seconds']:.2f} s wall"
    )
    head = f"{'new CPU s':>10}{'wall s':>8}{'peak MiB':>10}{'old CPU s':>11}{'ratio':>7}"
    print(f"  {'stage':<11}{head}")
    total_new = total_old = 0.0
    for key, (cpu, wall, peak, reset) in new.items():
        old_cpu = old.get(key, (None,))[0]
        ratio = f"{old_cpu / cpu:6.1f}x" if old_cpu is not None and cpu > 0 else ""
        shown_old = f"{old_cpu:11.2f}" if old_cpu is not None else f"{'-':>11}"
        mark = "" if reset else "*"
        print(f"  {key:<11}{cpu:10.2f}{wall:8.2f}{peak:9.0f}{mark:1}{shown_old}{ratio:>7}")
        if key != "first node":
            total_new += cpu
            total_old += old_cpu or 0.0
    print(f"  {'set-up':<11}{total_new:10.2f}{'':18}{total_old:11.2f}  (old without its build)")


def run_raw(
    name: str, X, y, sensitive: str, binarizer: Binarizer, max_length: int, repeats: int = 0
) -> None:
    cpu = time.process_time()
    fitted = Binarizer(**binarizer.get_params()).fit(X.drop(columns=[sensitive]), y)
    fit_cpu = time.process_time() - cpu
    est = FairRuleListClassifier(
        metric="SP", epsilon=0.05, lam=0.001, max_length=max_length, binarizer=binarizer
    )
    new, stats = new_stages(est, X, y, sensitive, fitted)
    old = old_stages(est, X, y, sensitive, fitted)
    report(name, new, old, stats, f"{len(X)} rows, binarizer fit {fit_cpu:.2f} CPU s (apart)")
    if repeats:
        report_labels(label_stages(est, X, y, sensitive, fitted, repeats))
        text = np.where(np.asarray(y) == 1, "yes", "no").astype(object)  # as a CSV gives them
        report_labels(label_stages(est, X, text, sensitive, fitted, repeats), "text labels")


def run_matrix(rows: int, max_length: int, repeats: int = 0) -> None:
    X, y, groups = structured_matrix(rows)
    frame = pd.DataFrame(X, columns=[f"a{j}" for j in range(X.shape[1])])
    est = FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.001, max_length=max_length)
    new, stats = new_stages(est, frame, y, groups, None)
    old = old_stages(est, frame, y, groups, None)
    report("pre-binarized matrix", new, old, stats, f"{rows} rows x {X.shape[1]} 0/1 columns")
    if repeats:
        report_labels(label_stages(est, frame, y, groups, None, repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="shared data folder")
    parser.add_argument("--rows", type=int, default=200_000, help="synthetic and matrix rows")
    parser.add_argument("--antecedents", type=int, default=2500, help="binarizer budget")
    parser.add_argument("--max-length", type=int, default=3)
    parser.add_argument(
        "--label-repeats",
        type=int,
        default=5,
        help="prepare with the labels' one route against the old one, this many times (0: not)",
    )
    parser.add_argument(
        "--tables", default="synthetic,adult,matrix", help="comma-separated: synthetic,adult,matrix"
    )
    args = parser.parse_args()
    tables = {t.strip() for t in args.tables.split(",")}
    runs: dict[str, Callable[[], None]] = {
        "matrix": lambda: run_matrix(args.rows, args.max_length, args.label_repeats),
        "synthetic": lambda: run_raw(
            "synthetic table",
            *synthetic(args.rows, args.antecedents),
            args.max_length,
            args.label_repeats,
        ),
        "adult": lambda: run_raw(
            "Adult", *adult(args.data, args.antecedents), args.max_length, args.label_repeats
        ),
    }
    print("CPU seconds of one process (the machine may be shared: wall seconds are noisy)")
    for name in ("matrix", "synthetic", "adult"):
        if name in tables:
            runs[name]()


if __name__ == "__main__":
    main()
