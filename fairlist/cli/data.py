"""The commands on files: ``datasets`` (the built-in data sets and where their files are),
``show`` (a saved rule list or model) and ``export`` (a saved rule list as Python, SQL or
text)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from .options import JsonOpt, ModelFileArg, check_output
from .program import emit_json, user_errors


def datasets(
    as_json: JsonOpt = False,
) -> None:
    """List the built-in data sets and where their files are (or would be downloaded)."""
    with user_errors(as_json):
        from ..datasets import DATASETS, data_home, fetch_file

        rows = []
        for name, info in sorted(DATASETS.items()):
            files = []
            for remote in info.files:
                try:
                    where = str(fetch_file(remote, download=False))
                except (OSError, ValueError):
                    where = None
                files.append({"path": remote.path, "found": where, "url": remote.url})
            rows.append(
                {
                    "name": name,
                    "description": info.description,
                    "min_support": info.min_support,
                    "files": files,
                }
            )
        home = str(data_home())
    if as_json:
        emit_json({"data_home": home, "datasets": rows})
        return
    typer.echo(f"data home (downloads go here): {home}")
    for row in rows:
        typer.echo(f"\n{row['name']}: {row['description']}")
        for f in row["files"]:
            state = f["found"] or f"missing (download from {f['url']})"
            typer.echo(f"  {f['path']}: {state}")


# --------------------------------------------------------------------------- show
def show(
    model: ModelFileArg,
    as_json: JsonOpt = False,
) -> None:
    """Print a saved rule list (or a saved model's rule list and training figures)."""
    from ..estimator import FairRuleListClassifier
    from ..model_file import RULE_LIST_FORMAT, read_document
    from ..rulelist import RuleList

    with user_errors(as_json):  # the checks of `predict` (and of `load`): a model shown is usable
        doc = read_document(model)
        training = None
        if isinstance(doc, dict) and doc.get("format") == RULE_LIST_FORMAT:
            rule_list = RuleList.from_dict(doc, source=model)
        else:
            clf = FairRuleListClassifier.from_dict(doc, source=model)
            rule_list, training = clf.rule_list_, clf.to_dict()["training"]
    if as_json:
        emit_json({"rule_list": rule_list.to_dict(), "text": str(rule_list), "training": training})
        return
    typer.echo(str(rule_list))
    if training is not None:
        typer.echo("")
        typer.echo(
            f"training accuracy {training['accuracy']:.4f}, unfairness "
            f"({training['metric']}) {training['unfairness']:.4f}; status {training['status']} "
            f"({training['stop_reason']}), objective {training['objective']:.6f}, lower bound "
            f"{training['lower_bound']:.6f}"
        )


class ExportFormat(str, enum.Enum):
    python = "python"
    sql = "sql"
    text = "text"


def export(
    model: ModelFileArg,
    format: Annotated[
        ExportFormat, typer.Option("--format", help="python, sql or text.")
    ] = ExportFormat.text,
    labels: Annotated[
        bool, typer.Option("--labels", help="Return the class names rather than 0/1.")
    ] = False,
    output: Annotated[
        Optional[Path],
        typer.Option(help="Write to this file (not a folder); default: stdout."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a saved rule list as a Python function, an SQL CASE expression or text.

    A model fitted on raw columns tests those columns (see fairlist.export).
    """
    from .._json import write_text
    from ..export import export as export_model
    from ..export import read_model

    with user_errors(as_json):
        check_output(output, "--output")  # a folder: said so, not a temporary file's name
        text = export_model(read_model(model), format.value, labels=labels)
        if output is not None:
            write_text(output, text + "\n")
    if as_json:
        emit_json({"format": format.value, "text": text, "output": output})
    elif output is None:
        typer.echo(text)
    else:
        typer.echo(f"{format.value} written to {output}")
