"""The reproduction study: deterministic CSVs, resumption, Dask, bad input, the policy orders."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairlist.errors import FairlistError, InvalidParameterError
from fairlist.solvers import Limits, Problem, get_solver
from fairlist.study import (
    PRESETS,
    ResultsFolderError,
    SchedulerError,
    StudyGrid,
    run_study,
)


def toy(n: int = 240, m: int = 7, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        (rng.random((n, m)) < 0.4).astype(np.uint8), columns=[f"a{j}" for j in range(m)]
    )
    g = rng.random(n) < 0.5
    y = ((X["a0"] | X["a1"]).to_numpy() ^ (rng.random(n) < 0.1)) | (g & (rng.random(n) < 0.3))
    return X, y.astype(int), g


DATA = {"toy": toy()}
GRID = StudyGrid(
    datasets=("toy",),
    metrics=("SP", "EOdds"),
    epsilons=(0.02, 0.1),
    policies=("bfs", "bfs_objective_aware_lowest"),
    pooled=("bfs",),
    cv=2,
    max_nodes=3_000,
    baselines=("lr",),
    bounds=(0.05,),
    baseline_metrics=("SP",),
    training_max_length=2,
    training_max_points=6,
)
N_FITS = 4 + 16 + 2 + 2  # unconstrained, constrained, logistic regression, training fronts


def run(out: Path, **kw):
    kw.setdefault("n_jobs", 1)
    return run_study(GRID, out, data=DATA, progress=None, **kw)


def csvs(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.glob("*.csv"))}


def records(folder: Path) -> list[Path]:
    return sorted((folder / "records").rglob("*.json"))


# --------------------------------------------------------------------------- determinism
def test_the_same_grid_gives_the_same_csv_files(tmp_path):
    first = run(tmp_path / "a")
    second = run(tmp_path / "b", n_jobs=2, backend="threading")  # other workers, other order
    assert first.complete and second.complete
    assert first.total == first.computed == N_FITS
    a, b = csvs(tmp_path / "a"), csvs(tmp_path / "b")
    assert set(a) == {
        "fits.csv",
        "points.csv",
        "fronts.csv",
        "training_fronts.csv",
        "paper.csv",
        "policies.csv",
        "orders.csv",
    }
    assert a == b
    fits = pd.read_csv(tmp_path / "a" / "fits.csv")
    # the unconstrained list and the logistic regression are measured under every metric
    assert set(fits[fits["method"] == "rule_list"]["metric"]) == {"SP", "EOdds"}
    assert set(fits["method"]) == {"fairlist", "rule_list", "lr"}
    training = pd.read_csv(tmp_path / "a" / "training_fronts.csv")
    assert {"status", "gap", "lower_bound", "on_front"} <= set(training.columns)
    assert (training["status"] == "optimal").all() and (training["gap"] == 0).all()


# --------------------------------------------------------------------------- resumption
def test_a_stopped_study_resumes_where_it_stopped(tmp_path):
    stopped = run(tmp_path / "r", max_fits=5)
    assert not stopped.complete and stopped.computed == 5 and stopped.report.interrupted
    assert len(records(tmp_path / "r")) == 5
    assert not list((tmp_path / "r").glob("*.csv"))  # no tables from an incomplete study
    resumed = run(tmp_path / "r")
    assert resumed.complete and resumed.stored == 5 and resumed.computed == N_FITS - 5
    run(tmp_path / "fresh")
    assert csvs(tmp_path / "r") == csvs(tmp_path / "fresh")
    again = run(tmp_path / "r")  # everything stored: nothing recomputed
    assert again.computed == 0 and again.complete


def test_ctrl_c_keeps_the_fits_done_and_never_stores_a_cut_fit(tmp_path, monkeypatch):
    import fairlist.study as study

    original = study.TASKS["rule_list"]
    calls = {"n": 0}

    def cut(*args):
        calls["n"] += 1
        if calls["n"] == 3:
            row = original(*args)
            return {**row, "status": "interrupted"}  # what the engine returns on Ctrl-C
        if calls["n"] == 6:
            raise KeyboardInterrupt
        return original(*args)

    monkeypatch.setitem(study.TASKS, "rule_list", cut)
    first = run(tmp_path / "c")
    assert first.report.interrupted and not first.complete and calls["n"] == 3
    kept = len(records(tmp_path / "c"))
    assert kept == first.computed  # the fits before the cut one, not the cut one
    second = run(tmp_path / "c")  # two more fits, then Ctrl-C
    assert second.report.interrupted and len(records(tmp_path / "c")) == kept + 2
    monkeypatch.setitem(study.TASKS, "rule_list", original)
    third = run(tmp_path / "c")
    assert third.complete and first.computed + second.computed + third.computed == N_FITS
    run(tmp_path / "fresh")
    assert csvs(tmp_path / "c") == csvs(tmp_path / "fresh")


# --------------------------------------------------------------------------- Dask
def test_a_dask_cluster_gives_the_local_csv_files(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="the study extra installs dask")
    run(tmp_path / "local")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        remote = run(tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert remote.complete and remote.report.workers == 2
    assert csvs(tmp_path / "dask") == csvs(tmp_path / "local")


def test_a_scheduler_that_does_not_answer_is_a_clear_error_within_seconds(tmp_path):
    pytest.importorskip("dask.distributed", reason="the study extra installs dask")
    start = time.perf_counter()
    with pytest.raises(SchedulerError, match="no Dask scheduler answers at 'tcp://127.0.0.1:9'"):
        run(tmp_path / "x", scheduler="tcp://127.0.0.1:9", connect_timeout=2)
    assert time.perf_counter() - start < 15


# --------------------------------------------------------------------------- bad input
def test_a_folder_of_another_version_is_refused(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "study.json").write_text(
        json.dumps({"format": "fairlist.study", "format_version": 0, "fairlist": "0.0.1"})
    )
    with pytest.raises(ResultsFolderError, match="another version.*fairlist '0.0.1'"):
        run(folder)
    (folder / "study.json").write_text("not json")
    with pytest.raises(ResultsFolderError, match="not a study manifest"):
        run(folder)


def test_a_folder_that_is_not_a_studys_is_refused_and_left_as_it_was(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "fits.csv").write_text("mine\n")
    with pytest.raises(ResultsFolderError, match=r"other is not empty.*fits\.csv"):
        run(other)
    assert [p.name for p in other.iterdir()] == ["fits.csv"]
    assert (other / "fits.csv").read_text() == "mine\n"
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(ResultsFolderError, match="a_file is a file, not a folder"):
        run(tmp_path / "a_file")
    listed = tmp_path / "listed"
    listed.mkdir()
    (listed / "study.json").write_text("[1, 2]")
    with pytest.raises(ResultsFolderError, match="not a study manifest \\(a JSON list"):
        run(listed)
    (tmp_path / "empty").mkdir()
    assert run(tmp_path / "empty", max_fits=1).computed == 1  # an empty folder is claimed


def test_an_edited_record_is_refused_naming_its_file(tmp_path):
    run(tmp_path / "e", max_fits=2)
    file = records(tmp_path / "e")[0]
    doc = json.loads(file.read_text())
    assert len(doc["sha256"]) == 64
    doc["result"]["test_error"] = 0.0  # better numbers than the fit gave
    file.write_text(json.dumps(doc))
    with pytest.raises(ResultsFolderError, match=f"{file.name} is refused: its content does"):
        run(tmp_path / "e")
    file.write_text("{not json")
    with pytest.raises(ResultsFolderError, match=f"{file.name} is refused: it cannot be read"):
        run(tmp_path / "e")
    file.unlink()  # as the message says: the fit is computed again
    assert run(tmp_path / "e").complete


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"datasets": ("toy", "credit")}, "unknown data set 'credit'"),
        ({"metrics": ("SP", "fairness")}, "'metrics' parameter"),
        ({"epsilons": ()}, "grid is empty: no epsilons"),
        ({"metrics": ()}, "grid is empty: no metrics"),
        ({"epsilons": (-0.1,)}, "'epsilons' parameter"),
        ({"policies": ("bfs", "fastest")}, "'policies' parameter"),
        ({"pooled": ("lower_bound",)}, "not among the fitted policies"),
        ({"baselines": ("laftr",)}, "'baselines' parameter"),
        ({"baseline_metrics": ("PP",)}, "'baseline_metrics' parameter"),
        ({"cv": 1}, "'cv' parameter"),
        ({"epsilons": "0.1"}, "must be a sequence"),
    ],
)
def test_bad_grids_are_named(tmp_path, change, message):
    from dataclasses import replace

    with pytest.raises(InvalidParameterError, match=message):
        run_study(replace(GRID, **change), tmp_path / "bad", data=DATA, progress=None)
    assert not (tmp_path / "bad").exists()  # nothing written for a bad grid


def test_bad_run_arguments_are_named(tmp_path):
    with pytest.raises(InvalidParameterError, match="'max_fits' parameter"):
        run(tmp_path / "x", max_fits=0)
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter.*nonzero"):
        run(tmp_path / "x", n_jobs=0)
    with pytest.raises(InvalidParameterError, match="grid must be a StudyGrid"):
        run_study({"datasets": ["compas"]}, tmp_path / "x")
    assert issubclass(SchedulerError, FairlistError) and issubclass(ResultsFolderError, ValueError)


def test_presets_are_valid_grids():
    paper = PRESETS["paper"]
    assert len(paper.epsilons) == 60 and paper.cv == 5 and paper.max_nodes == 4_000_000
    assert paper.lam == 0.001 and len(paper.pooled) == 4 and len(paper.metrics) == 6
    assert set(paper.pooled) <= set(paper.policies)
    assert paper.memory_mb == pytest.approx(80 * 4_000_000 / 2**20, abs=1e-3)


# --------------------------------------------------------------------------- baselines
def test_the_baselines_use_the_same_folds_and_the_papers_measures():
    from fairlist.metrics import unfairness
    from fairlist.pareto import fold_assignment
    from fairlist.study import METRICS, fit_baseline, load_data

    data = load_data(GRID, DATA, None)["toy"]
    X, y, g = DATA["toy"]
    assert (data.fold == fold_assignment(y, g, GRID.cv, GRID.seed)).all()
    out = fit_baseline(data, "expgrad_lr", "EOdds", 0.05, 1, 0, 2)
    assert set(out["test_unfairness"]) == set(METRICS)
    # logistic regression: recompute its test unfairness with the paper's EOdds (a sum)
    plain = fit_baseline(data, "lr", None, None, 0, 0, 2)
    from sklearn.linear_model import LogisticRegression

    test = data.fold == 0
    pred = LogisticRegression(max_iter=1000).fit(X[~test], y[~test]).predict(X[test])
    expected = unfairness(y[test], pred, g[test], "EOdds")
    assert plain["test_unfairness"]["EOdds"] == pytest.approx(expected)
    assert plain["test_error"] == pytest.approx(np.mean(pred != y[test]))


# --------------------------------------------------------------------------- the policy orders
@pytest.mark.parametrize("metric", ["SP", "EOdds", "PP"])
def test_both_bfs_objective_aware_orders_certify_the_same_optimum(metric):
    X, y, g = toy(n=200, m=6, seed=4)
    problem = Problem(X.to_numpy(), y, g, metric=metric, epsilon=0.05, lam=0.005)
    text = get_solver("bnb", policy="bfs_objective_aware", beam_width=0).solve(problem)
    lowest = get_solver("bnb", policy="bfs_objective_aware_lowest", beam_width=0).solve(problem)
    assert text.status == lowest.status == "optimal"
    assert abs(text.objective - lowest.objective) <= 1e-12


def test_the_two_orders_expand_prefixes_in_opposite_orders():
    X, y, g = toy(n=300, m=8, seed=1)
    problem = Problem(
        X.to_numpy(), y, g, metric="SP", epsilon=0.05, lam=0.001, limits=Limits(max_nodes=60)
    )
    found = {}
    for policy in ("bfs_objective_aware", "bfs_objective_aware_lowest"):
        result = get_solver("bnb", policy=policy, beam_width=0).solve(problem)
        found[policy] = (result.objective, result.stats["nodes_expanded"])
    # the same budget, different prefixes expanded first: different incumbents
    assert found["bfs_objective_aware"] != found["bfs_objective_aware_lowest"]


# --------------------------------------------------------------------------- on the real data
@pytest.mark.slow
def test_the_smoke_preset_on_compas(tmp_path, shared_data):
    if not (shared_data / "compas" / "compas-scores-two-years.csv").exists():
        pytest.skip("the raw COMPAS file is not in the shared data")
    outcome = run_study(
        PRESETS["smoke"], tmp_path / "s", data_home=shared_data, progress=None, n_jobs=1
    )
    assert outcome.complete
    paper = outcome.tables["paper"]
    assert set(paper["metric"]) == {"unconstrained", "SP", "EOdds"}


def _server(answer: bytes | None):
    """A local TCP server thread: accepts, then stays silent (``answer`` None) or, once it has
    read what the client sends, answers ``answer`` (an HTTP server's 400). Returns its address
    and a stop function."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()
    held = []

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)
            if answer is not None:
                conn.settimeout(5)
                try:
                    conn.recv(65536)  # what the client sent first
                    conn.sendall(answer)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()

    return f"tcp://127.0.0.1:{listener.getsockname()[1]}", close


HTTP_400 = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@pytest.mark.parametrize(
    ("answer", "says"),
    [(None, "sent no Dask handshake within 2 s"), (HTTP_400, "sent no Dask handshake")],
    ids=["silent", "http"],
)
def test_a_port_that_is_not_a_scheduler_is_a_clear_error_within_the_timeout(tmp_path, answer, says):
    pytest.importorskip("dask.distributed", reason="the study extra installs dask")
    address, close = _server(answer)
    try:
        start = time.perf_counter()
        with pytest.raises(SchedulerError, match=says):
            run(tmp_path / "x", scheduler=address, connect_timeout=2)
        assert time.perf_counter() - start < 15
    finally:
        close()


def test_an_http_server_that_speaks_first_is_named(tmp_path):
    import socket
    import threading

    from fairlist.study.runner import _probe

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve():
        conn, _ = listener.accept()
        conn.sendall(HTTP_400)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        with pytest.raises(SchedulerError, match="an HTTP server answers there"):
            _probe(f"tcp://127.0.0.1:{listener.getsockname()[1]}", 2)
    finally:
        listener.close()
