"""fit's progress says what runs (issue 34, item 7): its phases reach the progress callback, the
CLI's live line shows each phase and keeps a line for each that ended, warnings print above it,
and the hint after an uncertified search names the limit that stopped it."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairlist import FairRuleListClassifier
from fairlist import estimator as est_module
from fairlist.cli import app
from fairlist.cli import progress as cli_progress
from fairlist.cli.fit import _limit_hint
from fairlist.cli.progress import _progress_line

runner = CliRunner()


def raw_table(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 80, n), "job": rng.choice(list("abcde"), n)})
    y = ((X["age"] > 50) ^ (rng.random(n) < 0.1)).astype(int)
    return X, y, rng.random(n) < 0.5


def test_fit_reports_its_phases_before_the_engine_searches():
    X, y, g = raw_table()
    seen = []
    FairRuleListClassifier(
        epsilon=0.2, max_length=2, cuts="quantile", engine_options={"progress": seen.append}
    ).fit(X, y, sensitive_features=g)
    phases = [d for d in seen if "phase" in d]
    assert [d["phase"] for d in phases] == ["preparing", "binarizing", "building"]
    assert seen[: len(phases)] == phases  # the phases come first, then the search's dicts
    assert phases[1]["rows"] == 300 and phases[1]["columns"] == 2
    assert phases[2]["antecedents"] > 0 and phases[2]["raw_columns"] == 2
    assert all(d["seconds"] >= 0 for d in phases)
    # antecedents given: no binarizing phase
    seen.clear()
    Xb = (X[["age"]] > 50).astype(int)
    FairRuleListClassifier(engine_options={"progress": seen.append}).fit(
        Xb, y, sensitive_features=g
    )
    assert [d["phase"] for d in seen if "phase" in d] == ["preparing", "building"]


def test_the_live_line_names_each_phase():
    assert _progress_line({"phase": "reading", "source": "d.csv"}) == "reading d.csv…"
    line = _progress_line({"phase": "binarizing", "rows": 20000, "columns": 34})
    assert line == "binarizing 20,000 rows x 34 columns…"
    line = _progress_line({"phase": "building", "rows": 20000, "antecedents": 300})
    assert line == "building the search: 20,000 rows, 300 antecedents…"
    line = _progress_line({"seconds": 2.0, "nodes_expanded": 5, "best_objective": 0.5})
    assert line.startswith("searching… 2.0 s, 5 nodes")


def test_each_phase_that_ends_keeps_its_line_and_warnings_go_above(monkeypatch):
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=200, color_system=None)
    with cli_progress._StatusLine(console, "d.csv") as line:
        line({"phase": "preparing", "seconds": 0.0})
        line({"phase": "binarizing", "seconds": 0.1, "rows": 300, "columns": 2})
        cli_progress.show_warning("a column has no cut", UserWarning)
        line({"phase": "building", "seconds": 0.2, "rows": 300, "antecedents": 7})
        line({"seconds": 0.5, "nodes_expanded": 10})
    assert cli_progress._LIVE_LINE is None
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())  # no escape codes
    segments = [part.strip() for part in re.split(r"[\r\n]", text) if part.strip()]
    wanted = [
        "read d.csv (",
        "warning: a column has no cut",
        "binarized 300 rows x 2 columns into 7 antecedents (",
        "built the search: 300 rows, 7 antecedents (",
    ]
    at = [next(i for i, part in enumerate(segments) if part.startswith(w)) for w in wanted]
    assert at == sorted(at)  # in this order, each at the start of its own line
    assert segments[at[1]] == "warning: a column has no cut"  # not onto the live line


@pytest.mark.parametrize(
    "stop, says, not_says",
    [
        ("node_limit", "--max-nodes", "--time-limit"),
        ("time_limit", "--time-limit", "--max-nodes"),
        ("memory_limit", "--memory-limit", "--max-nodes"),
        ("memory_limit", "--memory-limit", "--time-limit"),
        ("interrupted", "stopped", "--max-nodes"),
    ],
)
def test_the_hint_names_the_limit_that_stopped_the_search(stop, says, not_says):
    assert says in _limit_hint(stop) and not_says not in _limit_hint(stop)


def test_no_limits_and_a_memory_stop_do_not_say_raise_max_nodes(tmp_path, monkeypatch):
    from fairlist.rulelist import RuleList
    from fairlist.solvers import Result, Status, StopReason

    class Stopped:  # an engine stopped by the memory limit, with no certificate
        name = "stub"

        def solve(self, problem):
            ev = problem.evaluate(RuleList([], 0, problem.labels, problem.feature_names))
            return Result(
                Status.FEASIBLE, RuleList([], 0), ev.objective, ev.accuracy, ev.unfairness,
                0.0, StopReason.MEMORY_LIMIT, "stub",
            )  # fmt: skip

    monkeypatch.setattr(est_module.FairRuleListClassifier, "_solver", lambda self: Stopped())
    X, y, g = raw_table()
    data = tmp_path / "d.csv"
    (X[["age"]] > 50).astype(int).assign(grp=g.astype(int), label=y).to_csv(data, index=False)
    args = ["fit", str(data), "--target", "label", "--sensitive", "grp"]
    result = runner.invoke(app, [*args, "--max-nodes", "0", "--time-limit", "0"])
    assert result.exit_code == 0, result.output
    assert "not certified optimal: raise --memory-limit" in result.stdout
    assert "raise --max-nodes or --time-limit" not in result.stdout
