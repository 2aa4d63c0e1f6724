"""The command line's shared options (issues 34 and 38): ``--n-jobs`` validated by the one
declaration of a thread count (``fairlist._params.N_JOBS``) on every command that takes it, and
the binarizer's options (``--max-antecedents``, ``--columns``, ``--keep-id-columns``) on every
command that binarizes a raw table, passed down to the binarizer that runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fairlist
from fairlist.cli import app
from fairlist.errors import DataError
from fairlist.synthetic import make_wide_table

runner = CliRunner()
CLI = Path(fairlist.__file__).parent / "cli"


@pytest.fixture(scope="module")
def wide_csv(tmp_path_factory):
    """A raw CSV of 300 rows: 3 numeric, 3 categorical and 3 ID-like columns, the label and
    the sensitive column."""
    t = make_wide_table(300, seed=2, n_numeric=3, n_categorical=3)
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    t.X.assign(sex=t.sensitive, label=t.y).to_csv(path, index=False)
    return str(path)


ROLES = ["--target", "label", "--sensitive", "sex"]
#: The commands that binarize a raw CSV themselves (fit's estimator does it for fit).
BINARIZING = {
    "pareto": ["pareto", "--exact", "--max-length", "1"],
    "verify": ["verify", "--max-length", "1"],
    "rashomon": ["rashomon", "--delta", "0", "--max-length", "1"],
}


# --------------------------------------------------------------------------- --n-jobs
@pytest.mark.parametrize(
    "command",
    [["fit"], ["verify"], ["pareto", "--max-length", "1"]],
    ids=["fit", "verify", "pareto"],
)
@pytest.mark.parametrize("value", ["0", "2000", "-2000"])
def test_every_n_jobs_refuses_what_the_one_declaration_refuses(wide_csv, command, value):
    result = runner.invoke(app, [command[0], wide_csv, *ROLES, *command[1:], "--n-jobs", value])
    assert result.exit_code == 2, result.output
    assert f"{value} is not an integer in [-1024, -1] or an integer in [1, 1024]" in (
        " ".join(result.output.split())
    )


def test_n_jobs_minus_two_is_all_cores_but_one_as_declared(tmp_path):
    """-2 (all but one core) is a thread count N_JOBS accepts: fit takes it (it refused every
    value below -1 before, with its own range)."""
    t = make_wide_table(200, seed=1, n_numeric=3, n_categorical=3, n_id_like=0)
    data = tmp_path / "d.csv"
    t.X.assign(sex=t.sensitive, label=t.y).to_csv(data, index=False)
    args = ["fit", str(data), *ROLES, "--max-length", "1", "--n-jobs", "-2", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output


def test_n_jobs_is_declared_once_in_options():
    """No command module declares its own --n-jobs (a range of its own): options.py does, with
    the callback that reads N_JOBS."""
    declared = {p.name: p.read_text(encoding="utf-8").count('"--n-jobs"') for p in CLI.glob("*.py")}
    assert {name for name, n in declared.items() if n} == {"options.py"}
    options = (CLI / "options.py").read_text(encoding="utf-8")
    assert options.count('"--n-jobs",\n        callback=_n_jobs,') == declared["options.py"]
    assert not re.search(r"min=-1\b", options)


# --------------------------------------------------------------------------- the binarizer
class Spied(Exception):
    pass


@pytest.fixture
def spy_binarizer(monkeypatch):
    """Record the binarizer a command's table is binarized with (its parameters, the columns
    it read, the antecedents it kept), then stop the command (exit 1) before any search."""
    import fairlist.table as table

    seen: dict = {}
    real = table.to_antecedents

    def spy(binarizer, X, y=None, **kwargs):
        fitted, matrix, names = real(binarizer, X, y, **kwargs)
        seen.update(fitted.get_params(), columns=list(X.columns), width=matrix.shape[1])
        raise DataError("spied: the binarizer ran")

    monkeypatch.setattr(table, "to_antecedents", spy)
    return seen


@pytest.mark.parametrize("command", list(BINARIZING))
def test_max_antecedents_reaches_the_binarizer_of_every_command(wide_csv, spy_binarizer, command):
    args = [*BINARIZING[command][:1], wide_csv, *ROLES, *BINARIZING[command][1:]]
    result = runner.invoke(app, [*args, "--max-antecedents", "12"])
    assert result.exit_code == 1 and "spied" in result.output, result.output
    assert spy_binarizer["max_antecedents"] == 12 and 0 < spy_binarizer["width"] <= 12
    assert spy_binarizer["keep_id_columns"] is False
    assert "row_id" in spy_binarizer["columns"]  # (the binarizer leaves it out itself)

    spy_binarizer.clear()
    runner.invoke(app, [*args, "--max-antecedents", "0", "--keep-id-columns"])
    assert spy_binarizer["max_antecedents"] is None  # 0: every antecedent
    assert spy_binarizer["keep_id_columns"] is True
    assert spy_binarizer["width"] > 12

    spy_binarizer.clear()
    runner.invoke(app, args)
    assert spy_binarizer["max_antecedents"] == 300  # omitted: the binarizer's default


@pytest.mark.parametrize("command", list(BINARIZING))
def test_columns_keeps_the_columns_given_on_every_command(wide_csv, spy_binarizer, command):
    args = [*BINARIZING[command][:1], wide_csv, *ROLES, *BINARIZING[command][1:]]
    result = runner.invoke(app, [*args, "--columns", "age, education"])
    assert result.exit_code == 1 and "spied" in result.output, result.output
    assert spy_binarizer["columns"] == ["age", "education"]
    bad = runner.invoke(app, [*args, "--columns", "age,nope"])
    assert bad.exit_code == 1 and "--columns 'nope' is not a column" in bad.output
    empty = runner.invoke(app, [*args, "--columns", " , "])
    assert empty.exit_code == 1 and "--columns names no column" in empty.output


def test_columns_refuses_a_built_in_data_set():
    result = runner.invoke(app, ["verify", "compas", "--columns", "age"])
    assert result.exit_code == 1
    assert "--columns applies to a CSV file; 'compas' is a built-in data set" in result.output


def test_max_antecedents_reaches_a_built_in_data_set(monkeypatch):
    """A built-in data set is binarized by its loader: the budget is handed to it (0: every
    antecedent, its default)."""
    import fairlist.datasets as datasets

    seen: dict = {}

    def spy(name, path=None, **kwargs):
        seen.update(kwargs)
        raise DataError("spied: the loader ran")

    monkeypatch.setattr(datasets, "load_dataset", spy)
    result = runner.invoke(app, ["rashomon", "compas", "--delta", "0", "--max-antecedents", "50"])
    assert result.exit_code == 1 and "spied" in result.output
    assert seen["max_antecedents"] == 50
    seen.clear()
    runner.invoke(app, ["fit", "compas", "--max-antecedents", "0"])
    assert seen["max_antecedents"] is None
    seen.clear()
    runner.invoke(app, ["fit", "compas"])
    assert "max_antecedents" not in seen


def test_fit_keeps_the_budget_in_its_model(wide_csv, tmp_path):
    """fit binarizes in the estimator: its model's binarizer has the budget, and the fit kept
    no more antecedents than it."""
    from fairlist import FairRuleListClassifier

    model = tmp_path / "m.json"
    args = ["fit", wide_csv, *ROLES, "--max-length", "1", "--output", str(model)]
    result = runner.invoke(app, [*args, "--max-antecedents", "12"])
    assert result.exit_code == 0, result.output
    binarizer = FairRuleListClassifier.load(model).binarizer_
    assert binarizer.max_antecedents == 12 and binarizer.n_antecedents_kept_ <= 12
    result = runner.invoke(app, [*args, "--max-antecedents", "0"])
    assert result.exit_code == 0, result.output
    binarizer = FairRuleListClassifier.load(model).binarizer_
    assert binarizer.max_antecedents is None and binarizer.n_antecedents_kept_ > 12
