"""Pareto fronts: the exact training front, the paper's cross-validated sweep, outputs, Dask."""

from __future__ import annotations

import itertools
import json
import os

import numpy as np
import pandas as pd
import pytest

from fairlist.errors import InvalidParameterError
from fairlist.metrics import FEASIBILITY_TOL, Metric, unfairness
from fairlist.pareto import (
    ParetoResult,
    cross_validated_front,
    non_dominated,
    training_front,
    unfairness_resolution,
)
from fairlist.solvers import ENGINES, Problem


def data(n: int = 90, m: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, m)) < 0.4).astype(np.uint8), columns=list("abcdef"[:m]))
    g = rng.random(n) < 0.5
    y = ((X["a"] | X["b"]).to_numpy() ^ (rng.random(n) < 0.1)) | (g & (rng.random(n) < 0.3))
    return X, y.astype(int), g


def brute_force_front(X, y, g, metric, lam, max_length):
    """Every (objective, unfairness) of every rule list up to max_length; the non-dominated."""
    p = Problem(X.to_numpy(), y, g, metric=metric, lam=lam, feature_names=list(X.columns))
    Xb, yb = p.X.astype(bool), p.y.astype(bool)
    n, m = Xb.shape
    seen = []
    for k in range(max_length + 1):
        for ants in itertools.permutations(range(m), k):
            for preds in itertools.product((0, 1), repeat=k + 1):
                pred = np.full(n, bool(preds[-1]))
                free = np.ones(n, dtype=bool)
                for j, q in zip(ants, preds[:-1], strict=False):
                    hit = free & Xb[:, j]
                    pred[hit] = bool(q)
                    free &= ~Xb[:, j]
                errors = int(np.sum(pred != yb))
                u = unfairness(yb, pred, g, metric)
                seen.append((errors / n + lam * k, u))
    obj, unf = np.array(seen).T
    keep = non_dominated(unf, obj)
    return sorted(zip(unf[keep], obj[keep], strict=True))


# --------------------------------------------------------------------------- helpers
def test_non_dominated_keeps_the_lower_left_staircase():
    x = [0.1, 0.2, 0.05, 0.2, 0.3, 0.05, np.nan]
    y = [0.3, 0.2, 0.4, 0.25, 0.1, 0.4, 0.0]
    assert non_dominated(x, y).tolist() == [True, True, True, False, True, False, False]


def test_resolution_is_the_gap_between_attainable_values():
    y = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1])
    g = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0], dtype=bool)  # n_p=3, n_u=6; P_p=2, P_u=3
    assert unfairness_resolution("SP", y, g) == pytest.approx(1 / 18)
    assert unfairness_resolution("EOpp", y, g) == pytest.approx(1 / 6)
    assert unfairness_resolution("PE", y, g) == pytest.approx(1 / 3)  # N_p=1, N_u=3
    assert unfairness_resolution("EOdds", y, g) == pytest.approx(1 / 6)  # lcm(6, 3)
    assert unfairness_resolution("PP", y, g) == 0.0
    # every pair of distinct attainable SP values differs by a multiple of the resolution
    values = {abs(a / 3 - b / 6) for a in range(4) for b in range(7)}
    gaps = np.diff(sorted(values))
    assert np.allclose(np.round(gaps * 18), gaps * 18)


# --------------------------------------------------------------------------- exact front
@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("metric", ["SP", "EOpp", "EOdds"])
def test_training_front_equals_the_brute_force_front(engine, metric):
    X, y, g = data()
    lam, K = 0.01, 2
    opts = {"num_workers": 1} if engine == "cpsat" else None
    res = training_front(
        X, y, g, metric=metric, lam=lam, max_length=K, engine=engine, engine_options=opts
    )
    expected = brute_force_front(X, y, g, metric, lam, K)
    got = list(zip(res.front["unfairness"], res.front["objective"], strict=True))
    assert len(got) == len(expected)
    for (u1, o1), (u2, o2) in zip(got, expected, strict=True):
        assert abs(u1 - u2) <= 1e-9 and abs(o1 - o2) <= 1e-9
    assert res.settings["complete"] and res.settings["exact_steps"]
    assert (res.points["status"].iloc[:-1] == "optimal").all()
    # one solve per point, plus at most the final proof of infeasibility
    assert len(res.points) - len(res.front) <= 1 + (res.points["objective"].duplicated()).sum()


def test_training_front_caps_strictly_below_the_last_unfairness():
    X, y, g = data(seed=2)
    res = training_front(X, y, g, metric="SP", lam=0.01, max_length=2)
    pts = res.points
    for prev, cap in zip(pts["unfairness"].iloc[:-1], pts["epsilon"].iloc[1:], strict=True):
        assert cap < prev - FEASIBILITY_TOL
        assert cap >= prev - unfairness_resolution("SP", y, g)  # no attainable value skipped
    json.loads(res.to_json())  # serialisable


def test_max_points_stops_early():
    X, y, g = data()
    res = training_front(X, y, g, metric="SP", lam=0.01, max_length=2, max_points=2)
    assert len(res.points) == 2
    assert not res.settings["complete"]


# --------------------------------------------------------------------------- the paper's sweep
def test_cross_validated_front_protocol():
    X, y, g = data(n=150, m=5, seed=1)
    eps = [0.0, 0.02, 0.1, 1.0]
    calls = []
    res = cross_validated_front(
        X,
        y,
        g,
        metric="SP",
        epsilons=eps,
        cv=3,
        policies=("bfs", "curiosity"),
        lam=0.01,
        max_length=3,
        n_jobs=1,
        progress=lambda d, t: calls.append((d, t)),
    )
    pts = res.points
    assert len(pts) == len(eps) * 2 * 3
    assert set(pts["policy"]) == {"bfs", "curiosity"}
    assert sorted(set(pts["fold"])) == [0, 1, 2]
    # every test fold is measured independently of the training folds
    ok = pts[pts["rule_list"].notna()]
    assert (ok["train_unfairness"] <= ok["epsilon"] + 1e-9).all()
    assert ok["test_unfairness"].between(0, 1).all()
    # the front are non-dominated means over the folds
    front = res.front
    assert (front["n_folds"] == 3).all()
    for _, row in front.iterrows():
        grp = pts[(pts["epsilon"] == row["epsilon"]) & (pts["policy"] == row["policy"])]
        assert row["test_error"] == pytest.approx(grp["test_error"].mean())
        assert row["test_unfairness"] == pytest.approx(grp["test_unfairness"].mean())
        assert len(row["rule_lists"]) == 3
    assert non_dominated(front["test_unfairness"], front["test_error"]).all()
    assert calls[-1][0] == calls[-1][1]
    # reuse: unconstrained optimal lists already under a cap are not solved again
    assert pts["reused"].any()


def test_folds_are_stratified_and_seeded():
    X, y, g = data(n=120, seed=3)
    kw = dict(metric="EOpp", epsilons=[0.05], cv=4, policies=("bfs",), lam=0.02, max_length=2)
    a = cross_validated_front(X, y, g, random_state=7, **kw).points
    b = cross_validated_front(X, y, g, random_state=7, **kw).points
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))


def test_results_write_csv_and_json_with_rule_lists(tmp_path):
    X, y, g = data()
    res = cross_validated_front(
        X, y, g, epsilons=[0.05, 0.5], cv=2, policies=("bfs",), lam=0.01, max_length=2
    )
    res.to_csv(tmp_path / "front.csv")
    res.to_csv(tmp_path / "points.csv", table="points")
    res.to_json(tmp_path / "pareto.json")
    front = pd.read_csv(tmp_path / "front.csv")
    assert {"epsilon", "test_error", "test_unfairness", "rule_lists"} <= set(front.columns)
    assert all(isinstance(json.loads(v), list) for v in front["rule_lists"])
    points = pd.read_csv(tmp_path / "points.csv")
    assert len(points) == 4
    doc = json.loads((tmp_path / "pareto.json").read_text())
    assert doc["kind"] == "cross_validation" and doc["metric"] == "statistical_parity"
    first = next(p for p in doc["points"] if p["rule_list"] is not None)
    assert first["rule_list"]["format"] == "fairlist.rule_list"
    with pytest.raises(ValueError, match="table must be"):
        res.to_csv(tmp_path / "x.csv", table="everything")


def test_cpsat_sweep_ignores_policies():
    X, y, g = data(n=60)
    res = cross_validated_front(
        X,
        y,
        g,
        epsilons=[0.1],
        cv=2,
        engine="cpsat",
        max_length=2,
        lam=0.01,
        engine_options={"num_workers": 1},
    )
    assert res.points["policy"].isna().all()
    assert len(res.points) == 2


def test_bad_arguments_are_named():
    X, y, g = data(n=40)
    with pytest.raises(ValueError, match="'epsilons' parameter"):
        cross_validated_front(X, y, g, epsilons=[-0.1])
    with pytest.raises(ValueError, match="'cv' parameter.*integer >= 2"):
        cross_validated_front(X, y, g, cv=1)
    with pytest.raises(ValueError, match="'lam' parameter"):
        training_front(X, y, g, lam=-1)
    with pytest.raises(ValueError, match="single group"):
        training_front(X, y, np.zeros(40, dtype=bool))


# --------------------------------------------------------------------------- parallel backends
def test_parallel_run_matches_the_sequential_one():
    X, y, g = data(n=100)
    kw = dict(
        metric="SP",
        epsilons=[0.0, 0.05],
        cv=2,
        policies=("bfs", "lower_bound"),
        lam=0.01,
        max_length=2,
        reuse_unconstrained=False,
    )
    seq = cross_validated_front(X, y, g, n_jobs=1, **kw).points
    par = cross_validated_front(X, y, g, n_jobs=2, backend="threading", **kw).points
    cols = ["epsilon", "policy", "fold", "objective", "test_error", "test_unfairness"]
    pd.testing.assert_frame_equal(seq[cols], par[cols])


def test_dask_local_cluster_backend():
    distributed = pytest.importorskip(
        "dask.distributed", reason="dask[distributed] is an optional extra (pip install .[dask])"
    )
    X, y, g = data(n=100)
    kw = dict(
        metric="EOpp",
        epsilons=[0.02, 0.2],
        cv=2,
        policies=("bfs",),
        lam=0.01,
        max_length=2,
        reuse_unconstrained=False,
    )
    expected = cross_validated_front(X, y, g, n_jobs=1, **kw).points
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        got = cross_validated_front(X, y, g, backend="dask", **kw).points
        assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) >= 0
    cols = ["epsilon", "policy", "fold", "objective", "test_error", "test_unfairness"]
    pd.testing.assert_frame_equal(expected[cols], got[cols])


def test_pareto_result_axes_follow_the_kind():
    empty = pd.DataFrame()
    cv = ParetoResult(empty, empty, "cross_validation", Metric.STATISTICAL_PARITY)
    tr = ParetoResult(empty, empty, "training", Metric.STATISTICAL_PARITY)
    assert (cv.x, cv.y) == ("test_unfairness", "test_error")
    assert (tr.x, tr.y) == ("unfairness", "error")


# --------------------------------------------------------------------------- outputs (compact)
def test_csv_holds_one_line_rule_lists_and_json_the_names_once(tmp_path):
    X, y, g = data()
    X = X.rename(columns={c: f"antecedent_with_a_long_name_{c}" for c in X.columns})
    res = training_front(X, y, g, metric="SP", lam=0.01, max_length=2)
    res.to_csv(tmp_path / "front.csv")
    front = pd.read_csv(tmp_path / "front.csv", keep_default_na=False)
    for text in front["rule_list"]:
        assert "\n" not in text and text.startswith(("if [", "["))
        assert text.count("antecedent_with_a_long_name") <= 2  # its own rules, not every name
    assert "rule_list" in front and "gap" in front and "status" in front
    doc = json.loads(res.to_json())
    assert doc["feature_names"] == list(X.columns)
    lists = [p["rule_list"] for p in doc["points"] if p["rule_list"] is not None]
    assert lists and all("feature_names" not in r for r in lists)
    from fairlist.rulelist import RuleList

    assert isinstance(RuleList.from_dict(lists[0]), RuleList)


def test_rule_list_text_reads_like_the_paper():
    from fairlist.pareto import rule_list_text
    from fairlist.rulelist import Rule, RuleList

    rl = RuleList([Rule("priors:>3", 1), Rule("age:18-20", 1)], 0, ("no", "yes"))
    expected = "if [priors:>3] then [yes] else if [age:18-20] then [yes] else [no]"
    assert rule_list_text(rl) == expected
    assert rule_list_text(rl.to_dict(), labels=("n", "y")).endswith("else [n]")
    assert rule_list_text(RuleList([], 1, ("no", "yes"))) == "[yes]"
    assert rule_list_text(None) == ""


# --------------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_stops_the_training_front_and_keeps_it_exact(interrupt_solve):
    X, y, g = data()
    full = training_front(X, y, g, metric="SP", lam=0.01, max_length=2)
    calls = interrupt_solve(3)
    res = training_front(X, y, g, metric="SP", lam=0.01, max_length=2)
    assert calls["n"] == 3  # the sweep stopped at the interrupted solve
    assert res.partial and res.settings["partial"] and not res.settings["complete"]
    assert list(res.points["status"]) == ["optimal", "optimal", "interrupted"]
    # the interrupted (uncertified) point is never on the front; the others are the exact ones
    assert "interrupted" not in set(res.front["status"])
    assert len(res.front) == 2
    # the two solves done are the two least fair points of the full front
    cols = ["unfairness", "objective"]
    pd.testing.assert_frame_equal(res.front[cols], full.front[cols].tail(2).reset_index(drop=True))
    assert not full.partial


#: A small sweep that the interrupt tests stop at its third fit: 2 caps x 2 folds, no reuse.
INTERRUPTED_SWEEP = dict(
    metric="SP",
    epsilons=[0.05, 0.5],
    cv=2,
    policies=("bfs",),
    lam=0.01,
    max_length=2,
    reuse_unconstrained=False,
    n_jobs=1,
)


def test_ctrl_c_stops_the_whole_cross_validated_sweep(interrupt_solve):
    X, y, g = data(n=120)
    kw = INTERRUPTED_SWEEP
    calls = interrupt_solve(3)
    res = cross_validated_front(X, y, g, **kw)
    assert calls["n"] == 3  # nothing ran after the interrupted fit
    assert res.partial
    assert list(res.points["status"]) == ["optimal", "optimal", "interrupted", "not_run"]
    # only the cap whose folds all finished makes a point
    assert list(res.front["epsilon"]) == [0.05]


def test_a_real_ctrl_c_during_a_solve_returns_a_partial_front():
    import _thread
    import threading

    rng = np.random.default_rng(5)
    n, m = 3000, 40
    X = (rng.random((n, m)) < 0.3).astype(np.uint8)
    g = rng.random(n) < 0.5
    y = (rng.random(n) < 0.5).astype(int)  # noise: a search that does not end soon
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        res = training_front(X, y, g, metric="SP", lam=1e-4, max_nodes=50_000_000)
    finally:
        timer.cancel()
    assert res.partial
    assert res.points.empty or res.points["status"].iloc[-1] == "interrupted"
    assert res.front.empty or "interrupted" not in set(res.front["status"])


# --------------------------------------------------------------------------- run_tasks
def _square(offset, k):
    return offset + k * k


def test_run_tasks_reports_every_result_and_the_efficiency():
    from fairlist.parallel import run_tasks

    seen = {}
    report = run_tasks(
        _square,
        [(k,) for k in range(6)],
        (100,),
        n_jobs=2,
        backend="threading",
        on_result=lambda i, out, s: seen.update({i: out}),
    )
    assert seen == {k: 100 + k * k for k in range(6)}
    assert report.done == report.total == 6 and not report.interrupted
    assert report.workers == 2 and 0 < report.efficiency
    assert "parallel efficiency" in report.summary()
    # a False from on_result stops the run
    report = run_tasks(
        _square, [(k,) for k in range(6)], (0,), n_jobs=1, on_result=lambda i, out, s: i < 2
    )
    assert report.interrupted and report.done == 3


# --------------------------------------------------------------------------- issue 25
def test_sweeps_are_bounded_by_default_and_share_the_one_default_lam():
    import inspect

    from fairlist.cli.fronts import pareto as cli_pareto
    from fairlist.pareto import (
        SWEEP_MAX_NODES,
        SWEEP_N_EPSILONS,
        SWEEP_POLICIES,
        SWEEP_TIME_LIMIT,
        default_epsilons,
    )
    from fairlist.solvers.base import DEFAULT_LAM

    for fn in (cross_validated_front, training_front):
        params = inspect.signature(fn).parameters
        assert params["max_nodes"].default == SWEEP_MAX_NODES
        assert params["time_limit"].default == SWEEP_TIME_LIMIT
        assert params["lam"].default == DEFAULT_LAM
    assert inspect.signature(cross_validated_front).parameters["policies"].default == SWEEP_POLICIES
    assert len(default_epsilons()) == SWEEP_N_EPSILONS
    cli = inspect.signature(cli_pareto).parameters
    assert cli["max_nodes"].default == SWEEP_MAX_NODES
    assert cli["time_limit"].default == SWEEP_TIME_LIMIT
    assert cli["n_epsilons"].default == SWEEP_N_EPSILONS
    assert cli["policies"].default == ",".join(SWEEP_POLICIES)
    assert cli["lam"].default == DEFAULT_LAM
    # the default sweep: 20 caps x 1 policy x 5 folds + 5 unconstrained fits
    assert SWEEP_N_EPSILONS * len(SWEEP_POLICIES) * 5 + 5 <= 120


def three_groups(n: int = 150, seed: int = 1):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, 4)) < 0.4).astype(np.uint8), columns=list("abcd"))
    s = rng.choice(["r", "g", "b"], n)
    noise, extra = rng.random(n) < 0.1, rng.random(n) < 0.4
    y = ((X["a"] | X["b"]).to_numpy() ^ noise) | ((s == "r") & extra)
    return X, y.astype(int), s


def test_the_exact_front_takes_three_groups():
    X, y, s = three_groups()
    res = training_front(X, y, s, metric="SP", lam=0.01, max_length=2)
    assert len(res.settings["group_names"]) == 3
    assert len(res.front) >= 2 and res.settings["complete"]
    # every point's unfairness is the largest gap over the three groups
    for doc, u in zip(res.front["rule_list"], res.front["unfairness"], strict=True):
        from fairlist.rulelist import RuleList

        pred = RuleList.from_dict(doc).predict(X.to_numpy())
        assert unfairness(y, pred, s, "SP") == pytest.approx(u)


def test_the_cross_validated_front_takes_three_groups():
    X, y, s = three_groups()
    res = cross_validated_front(X, y, s, metric="SP", epsilons=[0.1, 1.0], cv=3, max_length=2)
    assert not res.partial and len(res.front) >= 1
    assert res.settings["fits"]["total"] == 3 + 2 * 3
    assert res.front["test_unfairness"].notna().all()


def test_the_plotted_front_is_non_dominated_on_the_plotted_axes():
    X, y, s = three_groups()
    res = training_front(X, y, s, metric="SP", lam=0.01, max_length=2)
    shown = res.plotted
    assert non_dominated(shown[res.x], shown[res.y]).all()
    assert set(shown["unfairness"]) <= set(res.front["unfairness"])
    # the example of issue 25: a front in objective holds a point dominated in error
    made = ParetoResult(
        pd.DataFrame(
            {"unfairness": [0.05, 0.06], "error": [0.27, 0.273], "objective": [0.31, 0.303]}
        ),
        pd.DataFrame(
            {"unfairness": [0.05, 0.06], "error": [0.27, 0.273], "objective": [0.31, 0.303]}
        ),
        "training",
        Metric.parse("SP"),
    )
    assert list(made.plotted["unfairness"]) == [0.05]


def test_more_folds_than_samples_is_one_clear_error():
    from fairlist.errors import InvalidParameterError

    X, y, g = data(n=20)
    with pytest.raises(InvalidParameterError, match="cv=50 folds for 20 samples"):
        cross_validated_front(X, y, g, cv=50, epsilons=[0.1])


def test_an_interrupted_sweep_counts_the_fits_run_and_cancelled(interrupt_solve):
    X, y, g = data(n=120)
    kw = INTERRUPTED_SWEEP
    interrupt_solve(3)
    res = cross_validated_front(X, y, g, **kw)
    assert res.settings["fits"] == {
        "total": 4,
        "solved": 2,
        "reused": 0,
        "interrupted": 1,
        "not_run": 1,
    }


def test_the_default_memory_cap_is_divided_among_the_workers():
    from fairlist.pareto import memory_share
    from fairlist.solvers.bnb import default_memory_limit_mb

    total = default_memory_limit_mb()
    assert memory_share(None, "bnb", 1, None) is None  # one worker: the engine's own default
    assert memory_share(None, "bnb", 4, "loky") == pytest.approx(total / 4)
    assert memory_share(None, "bnb", 2, "threading") == pytest.approx(total / 2)
    assert memory_share(512.0, "bnb", 4, "loky") == 512.0  # a cap given is the user's
    assert memory_share(None, "cpsat", 4, "loky") is None
    X, y, g = data(n=60)
    res = cross_validated_front(
        X, y, g, epsilons=[0.5], cv=2, max_length=1, n_jobs=2, backend="threading"
    )
    assert res.settings["memory_limit_mb"] == pytest.approx(total / 2)


def test_shutdown_workers_removes_the_memory_maps_it_registered(tmp_path):
    from joblib.externals.loky import reusable_executor

    from fairlist.parallel import run_tasks, shutdown_workers

    big = np.zeros(200_000)  # above max_nbytes: memory-mapped for the workers
    report = run_tasks(np.sum, [()] * 2, (big,), n_jobs=2, backend="loky")
    assert report.done == 2
    executor = reusable_executor._executor
    folders = executor._temp_folder_manager._cached_temp_folders.copy()
    assert folders and all(os.path.exists(path) for path in folders.values())
    shutdown_workers()
    assert all(not os.path.exists(path) for path in folders.values())
    shutdown_workers()  # nothing left: a no-op


# ---------------------------------------------------------------------------- tail threads
def test_share_cores_splits_the_cores_among_the_fits_that_can_run_at_once():
    from fairlist.parallel import share_cores

    # 16 workers, 10 fits: 16 // 10, 16 // 9, ..., 16 // 1
    assert share_cores(10, workers=16, cores=16) == [1, 1, 2, 2, 2, 3, 4, 5, 8, 16]
    # 4 workers on 16 cores: 4 threads a fit while all 4 are busy
    assert share_cores(5, workers=4, cores=16) == [4, 4, 5, 8, 16]
    assert share_cores(3, workers=1, cores=8) == [8, 8, 8]  # one worker: every core, in turn
    assert share_cores(0, workers=4, cores=4) == []
    for n, w, c in itertools.product(range(1, 30), range(1, 9), range(1, 17)):
        threads = share_cores(n, w, c)
        # While every worker is busy each fit gets an equal share; then the share grows to
        # every core for the last fit, and never shrinks along the order.
        assert threads[0] == max(1, c // min(w, n)) and threads[-1] == c
        assert threads == sorted(threads) and min(threads) >= 1
        # The slow fits first: together they get every core (at most one thread per core
        # more each), and the others are counted as without them.
        for k in range(1, n + 1):
            first = share_cores(n, w, c, slow=k)
            assert len(set(first[:k])) == 1 and first[k:] == threads[k:]
            assert c <= first[0] * min(k, w) < c + min(k, w)
    # 5 slow fits of 80 on 16 workers and cores: 4 threads each, beside 11 one-thread fits
    assert share_cores(80, workers=16, cores=16, slow=5)[:7] == [4, 4, 4, 4, 4, 1, 1]


def test_tail_threads_certify_the_same_fits_and_run_the_epsilon_0_fits_first():
    """Tail threads: the same certified objectives as one thread a fit, the fits at epsilon 0
    started first, and each fit's thread count the one share_cores gives its place."""
    from fairlist.errors import InvalidParameterError
    from fairlist.parallel import share_cores, usable_cores, worker_count

    X, y, g = data(n=120)
    kw = dict(metric="SP", epsilons=[0.0, 0.1], cv=2, lam=0.01, max_length=2, n_jobs=2)
    kw.update(reuse_unconstrained=False, backend="threading")
    tail = cross_validated_front(X, y, g, tail_threads=True, **kw)
    plain = cross_validated_front(X, y, g, **kw)
    assert tail.settings["tail_threads"] and not plain.settings["tail_threads"]
    assert (tail.points["status"] == "optimal").all()
    np.testing.assert_array_equal(tail.points["objective"], plain.points["objective"])
    assert (plain.points["threads"] == 1).all()
    # The grid ran in the order (0, fold 0), (0, fold 1), (0.1, fold 0), (0.1, fold 1).
    expected = share_cores(4, worker_count(2, "threading"), usable_cores(), slow=2)
    got = tail.points.set_index(["epsilon", "fold"])["threads"]
    assert [got[(0.0, 0)], got[(0.0, 1)], got[(0.1, 0)], got[(0.1, 1)]] == expected
    with pytest.raises(InvalidParameterError, match="'tail_threads' parameter"):
        cross_validated_front(X, y, g, tail_threads="yes", **kw)


# --------------------------------------------------------------------------- issue 38
class _PlainEngine:
    """An engine of the registry that declares no capability (a test's stand-in)."""

    def __init__(self, *, n_jobs: int = 1, **options):
        self.options = {"n_jobs": n_jobs, **options}


@pytest.fixture
def plain_engine(monkeypatch):
    """``"plain"`` registered beside bnb and cpsat, its class :class:`_PlainEngine`."""
    from fairlist import solvers
    from fairlist.solvers import ENGINE_NAMES, ENGINES, EngineSpec

    spec = EngineSpec(__name__, "_PlainEngine", policy=None, seed=None, threads="n_jobs")
    monkeypatch.setitem(ENGINES, "plain", spec)
    monkeypatch.setattr(ENGINE_NAMES, "values", (*ENGINE_NAMES.values, "plain"))
    return solvers


def test_engine_capabilities_are_asked_of_the_registry_not_by_name(plain_engine):
    from fairlist.solvers import CAPABILITIES, ENGINES, require_capability
    from fairlist.sweep import FitSettings, memory_share

    assert not any(ENGINES["plain"].supports(c) for c in CAPABILITIES)
    with pytest.raises(InvalidParameterError, match=r"policy='curious': engine='plain'"):
        require_capability("plain", "supports_policies", "policy='curious'")
    with pytest.raises(ValueError, match="unknown engine capability"):
        ENGINES["bnb"].supports("threads")
    # a sweep's fit: no policy keyword to hand over, threads not canonical: one thread a fit
    plain = FitSettings(Metric.parse("SP"), 0.01, None, "plain", 10, None)
    assert plain.solver("curious", n_threads=4).options == {"n_jobs": 1}
    assert memory_share(None, "plain", 4, "loky") is None  # no memory cap of its own to share
    bnb = FitSettings(Metric.parse("SP"), 0.01, None, "bnb", 10, None).solver(
        "curious", n_threads=4
    )
    assert (bnb.policy, bnb.n_jobs) == ("curious", 4)
    cpsat = FitSettings(Metric.parse("SP"), 0.01, None, "cpsat", 10, None).solver(None, n_threads=4)
    assert cpsat.num_workers != 4  # CP-SAT's workers are not reproducible: not handed over
    for spec in ENGINES.values():  # the keyword and the capability say the same
        assert spec.supports("supports_policies") == (spec.policy is not None)


def test_training_front_refuses_a_policy_of_an_engine_without_policies_by_name():
    X, y, g = data()
    with pytest.raises(InvalidParameterError, match=r"policy='curious': engine='cpsat'"):
        training_front(X, y, g, engine="cpsat", policy="curious", max_length=2)


def test_the_thread_count_constraint_is_declared_once(monkeypatch):
    from fairlist import prepare, rashomon
    from fairlist._params import N_JOBS
    from fairlist.estimator import PARAMETER_CONSTRAINTS as ESTIMATOR
    from fairlist.pareto import _CV_CONSTRAINTS
    from fairlist.solvers.bnb import BnBSolver

    assert ESTIMATOR["n_jobs"] is N_JOBS
    assert BnBSolver.PARAMETER_CONSTRAINTS["n_jobs"] is N_JOBS
    assert _CV_CONSTRAINTS["n_jobs"][1:] == N_JOBS  # None (joblib's default), then the same
    assert all(a is b for a, b in zip(_CV_CONSTRAINTS["n_jobs"][1:], N_JOBS, strict=True))
    seen = []

    class Seen(Exception):
        pass

    def record(owner, constraints, params):
        seen.append(constraints)
        if "lam" in constraints:
            raise Seen

    # the Rashomon set (no n_jobs of its own) validates its problem by the data route's table,
    # whose entries are the estimator's, the same objects
    monkeypatch.setattr(prepare, "validate_params", record)
    with pytest.raises(Seen):
        rashomon.rashomon_set(*data(), delta=0.1)
    assert seen[-1] is prepare.PARAMETER_CONSTRAINTS
    assert all(ESTIMATOR[k] is v for k, v in prepare.PARAMETER_CONSTRAINTS.items())
    for bad in (0, 2000, -2000):
        with pytest.raises(InvalidParameterError, match="n_jobs"):
            cross_validated_front(*data(), n_jobs=bad)
