"""``report``: a saved model's audit as one self-contained HTML page (the list, its
certificate, each group's rates with confidence intervals on the training and the test data,
its place on a Pareto front, the alternatives within ``--delta``); see
:mod:`fairlist.report`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..table import read_table
from .options import (
    DropOpt,
    GroupsName,
    GroupsOpt,
    JsonOpt,
    ProtectedOpt,
    SensitiveOpt,
    TargetOpt,
    WeightOpt,
    check_output,
)
from .program import emit_json, user_errors

ModelArg = Annotated[
    Path, typer.Argument(metavar="MODEL", help="A model written by `fairlist fit --output`.")
]
TrainOpt = Annotated[
    str,
    typer.Option(
        "--data",
        metavar="TRAIN",
        help="The training data (CSV file or built-in data set), read with the model's roles.",
    ),
]
TestOpt = Annotated[
    Optional[str],
    typer.Option(
        "--test", metavar="TEST", help="Held-out data (same columns): rates and the cap on it."
    ),
]
ReportOutputOpt = Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")]
FrontOpt = Annotated[
    Optional[Path],
    typer.Option(help="A front written by `fairlist pareto` (CSV or JSON): the model's place."),
]
DeltaOpt = Annotated[
    Optional[float],
    typer.Option(
        min=0.0,
        help="Add the least unfair list within DELTA of the optimum and the multiplicity of "
        "the lists within it (two searches on TRAIN).",
    ),
]
LevelOpt = Annotated[
    float, typer.Option(min=0.5, max=0.999, help="Confidence level of the intervals.")
]
TitleOpt = Annotated[Optional[str], typer.Option(help="The page's title.")]
SearchTimeOpt = Annotated[float, typer.Option(help="Seconds for each --delta search (0: none).")]


def _roles(clf: Any, target: str | None, sensitive: list[str] | None, protected: str | None):
    """The columns' roles: the options, else those the model was fitted with (its metadata)."""
    meta = getattr(clf, "metadata_", None) or {}
    if target is None:
        target = meta.get("target")
    if not sensitive:
        sensitive = meta.get("sensitive") or None
    if protected is None and meta.get("protected") is not None:
        protected = str(meta["protected"])
    return target, sensitive, protected


def _weight(clf: Any, data: str, weight: str | None) -> str | None:
    """``--weight``, else the model's weight column (its metadata) when the CSV file ``data``
    holds it: the rows weighed as the fit weighed them (a table without it: unweighted)."""
    column = (getattr(clf, "metadata_", None) or {}).get("weight")
    if weight is not None or column is None or not Path(data).is_file():
        return weight
    import csv

    try:
        with open(data, newline="", encoding="utf-8-sig") as lines:
            header = next((row for row in csv.reader(lines) if row), [])
    except (OSError, UnicodeDecodeError, csv.Error):  # read_table says what is wrong
        return None
    return column if column in header else None


def _model_columns(clf: Any, table: Any) -> Any:
    """The table's columns the model reads (and the sensitive ones), in the model's order: a
    column the fit left out (``--drop``) is not an error here."""
    fitted = getattr(clf, "feature_names_in_", None)
    X = table.X
    if fitted is None or not hasattr(X, "columns"):
        return X
    keep = [str(c) for c in fitted] + list(table.sensitive_columns or ())
    keep += [c for c in clf.sensitive_columns_ if c not in keep]
    return X[[c for c in X.columns if c in set(keep)]]


def report(
    model: ModelArg,
    data: TrainOpt,
    test: TestOpt = None,
    output: ReportOutputOpt = Path("report.html"),
    target: TargetOpt = None,
    sensitive: SensitiveOpt = None,
    protected: ProtectedOpt = None,
    drop: DropOpt = None,
    weight: WeightOpt = None,
    groups: GroupsOpt = GroupsName.paper,
    front: FrontOpt = None,
    delta: DeltaOpt = None,
    level: LevelOpt = 0.95,
    title: TitleOpt = None,
    time_limit: SearchTimeOpt = 60.0,
    as_json: JsonOpt = False,
) -> None:
    """Write a saved model's audit as one self-contained HTML page (no network needed).

    The page says in plain words what the list is, what was certified (status, bound, gap,
    the antecedents it is optimal over), each group's confusion counts and rates with
    confidence intervals on TRAIN and TEST, and whether the fairness cap holds on TEST within
    them; with --front, the model's place on a Pareto front; with --delta, the least unfair
    list within DELTA of the optimum and how much the near-optimal lists disagree. The roles
    of the columns (--target, --sensitive, --protected, and --weight where the table holds the
    model's weight column) default to the model's. Needs Jinja2:
    pip install 'fairlist[report]'.
    """
    from ..estimator import FairRuleListClassifier
    from ..report import write_report

    with user_errors(as_json):
        check_output(output, "--output")
        clf = FairRuleListClassifier.load(model)
        target, sensitive, protected = _roles(clf, target, sensitive, protected)

        def read(name: str) -> Any:
            return read_table(
                name,
                target,
                sensitive,
                protected,
                drop,
                antecedents=False,
                weight=_weight(clf, name, weight),
                groups=groups.value,
            )

        train = read(data)
        options: dict[str, Any] = {}
        if test is not None:
            held = read(test)
            options.update(
                X_test=_model_columns(clf, held),
                y_test=held.y,
                sensitive_features_test=held.groups,
                sample_weight_test=held.weight,
                test_name=held.source,
            )
        path = write_report(
            output,
            clf,
            _model_columns(clf, train),
            train.y,
            train.groups,
            train.protected,
            sample_weight=train.weight,
            front=front,
            delta=delta,
            level=level,
            title=title,
            data_name=train.source,
            time_limit=time_limit or None,
            **options,
        )
    size = path.stat().st_size
    if as_json:
        emit_json({"report": str(path), "bytes": size, "status": str(clf.status_)})
    else:
        typer.echo(f"report written to {path} ({size / 1024:,.0f} KiB): status {clf.status_}")
