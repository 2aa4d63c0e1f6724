"""The ``fairlist`` command line.

Library errors are caught here only, and printed as one readable line with exit code 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._version import __version__

app = typer.Typer(
    name="fairlist",
    help="Learn certifiably optimal fair rule lists.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fairlist {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = None,
) -> None:
    """Learn certifiably optimal fair rule lists."""


def fail(message: str, code: int = 1) -> None:
    """Print one readable error line and exit."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


@app.command()
def show(
    model: Annotated[Path, typer.Argument(help="A rule list saved as JSON.")],
) -> None:
    """Print a saved rule list in the paper's format."""
    from .rulelist import RuleList

    try:
        typer.echo(str(RuleList.from_json(model)))
    except (OSError, ValueError) as exc:
        fail(str(exc))


def main() -> None:
    app()
