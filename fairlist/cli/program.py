"""The program: the Typer application and its command group, the root callback (``--version``,
the signal handlers for the length of a command), the exit codes, the one place where a user's
error becomes one line and an exit status (:func:`user_errors`, :func:`fail`), and
:func:`main`, the ``fairlist`` console script.

The commands are plain functions in the modules of their group (:mod:`fairlist.cli.fit`, ...);
the package's ``__init__`` registers them on :data:`app` (``fairlist.cli.COMMANDS``). This module
imports none of them: they import it.
"""

from __future__ import annotations

import json
import warnings
from contextlib import contextmanager
from typing import Annotated, Any, Optional

import typer
import typer.core

from .._json import dumps
from .._version import __version__
from ..errors import FairlistError, InfeasibleError
from ..interrupts import InterruptSignals, early_signals, exit_on_signals, started
from .progress import show_warning


def _usage_error_kinds() -> tuple[type, ...]:
    """Click's usage error: Typer 0.2x vendors its own click (``typer._click``); older Typers use
    the click package."""
    kinds: list[type] = []
    vendored = getattr(typer.core, "_click", None)
    if vendored is not None:
        kinds.append(vendored.exceptions.UsageError)
    try:
        import click

        kinds.append(click.UsageError)
    except ImportError:  # pragma: no cover - a Typer without the click package
        pass
    return tuple(kinds)


_USAGE_ERRORS = _usage_error_kinds()


class _Commands(typer.core.TyperGroup):
    """The command group: under ``--json`` a usage error (exit 2: an unknown option, a missing
    or bad argument) is a JSON object on stdout, ``{"error": ..., "exit_code": 2}``, as every
    other error of a ``--json`` command, instead of click's usage text."""

    def make_context(self, info_name: Any, args: list[str], *rest: Any, **extra: Any) -> Any:
        self._as_json = "--json" in args
        try:
            return super().make_context(info_name, args, *rest, **extra)
        except _USAGE_ERRORS as exc:
            raise self._shown(exc) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _USAGE_ERRORS as exc:
            raise self._shown(exc) from None

    def _shown(self, exc: Any) -> Any:
        if getattr(self, "_as_json", False):
            doc = {"error": exc.format_message(), "exit_code": exc.exit_code}
            exc.show = lambda file=None: typer.echo(json.dumps(doc))  # type: ignore[method-assign]
        return exc


app = typer.Typer(
    cls=_Commands,
    name="fairlist",
    help="Learn certifiably optimal fair rule lists.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: wrapped, never truncated, readable in any terminal
)

# The exit codes, declared once here; their one table is docs/cli.md's (tests/test_cli.py
# checks that it lists exactly these).
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INFEASIBLE, EXIT_DISAGREE = 0, 1, 2, 3, 4
EXIT_NOT_CERTIFIED = 5  # fit --require-optimal: a limit stopped the search before a certificate
EXIT_INCONCLUSIVE = 6  # verify: a limit stopped an engine before agreement or disagreement showed
EXIT_INTERRUPTED = 130  # 128 + SIGINT (Ctrl-C)
EXIT_TERMINATED = 143  # 128 + SIGTERM

#: The signals that stopped the command being run: SIGTERM is handled as Ctrl-C for the length
#: of a command (the root callback installs the handlers and restores the previous ones after).
_signals = InterruptSignals()


def interrupted_code() -> int:
    """The exit status of an interrupted command: 130 after Ctrl-C, 143 after SIGTERM."""
    return _signals.exit_code


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fairlist {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = None,
) -> None:
    """Learn certifiably optimal fair rule lists."""
    ctx.with_resource(_signals)  # SIGTERM as Ctrl-C until the command returns


def fail(message: str, code: int = EXIT_ERROR, as_json: bool = False) -> None:
    """Print one readable error line (a JSON object under ``--json``) and exit."""
    if as_json:
        typer.echo(json.dumps({"error": message, "exit_code": code}))
    else:
        typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


@contextmanager
def user_errors(as_json: bool = False):
    """Turn the errors a user's input causes into one line and an exit code: 3 when nothing fair
    exists, 130 on Ctrl-C (143 on SIGTERM), 1 otherwise; under ``--json`` the line is a JSON
    object on stdout (``{"error": ..., "exit_code": ...}``). Anything else is a bug and keeps its
    traceback."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            yield
    except InfeasibleError as exc:
        stop = getattr(getattr(exc, "result", None), "stop_reason", None)
        if str(stop) == "interrupted" or _signals.received:  # stopped before any fair list
            fail("interrupted before any fair rule list was found", interrupted_code(), as_json)
        fail(str(exc), EXIT_INFEASIBLE, as_json)
    except KeyboardInterrupt:
        fail("interrupted before any result", interrupted_code(), as_json)
    except (FairlistError, OSError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, EXIT_ERROR, as_json)


def emit_json(doc: Any) -> None:
    typer.echo(dumps(doc))


def main() -> None:
    """The ``fairlist`` program. A signal outside a command's own handling ends it with 130
    after SIGINT, 143 after SIGTERM, never a traceback: while it starts (before the handlers of
    :class:`InterruptSignals`, :func:`exit_on_signals` ends it at once with one line; the
    package's ``__init__`` installs it first thing for the console script and
    ``python -m fairlist``), and a second signal while the first one's result is being
    written."""
    exit_on_signals()
    try:
        with _signals:
            started()  # the command's handlers are in: a signal now stops the command
            app()
    except KeyboardInterrupt:
        raise SystemExit(_signals.exit_code) from None
    except SystemExit as exc:
        # The record of the signals, not the exception, decides: a command that ends as
        # interrupted or as done after a signal (one whose KeyboardInterrupt was swallowed by
        # the code it interrupted, one after the command's handlers are gone) exits with
        # 128 + the first signal.
        received = early_signals + _signals.received
        # (EXIT_ERROR: an older Typer turns a KeyboardInterrupt while it parses the command
        # line into "Aborted!" and 1.)
        if received and exc.code in (EXIT_INTERRUPTED, EXIT_ERROR, 0, None):
            raise SystemExit(128 + received[0]) from None
        raise
    finally:
        # The command is done and its exit status decided: a signal now (a second Ctrl-C
        # while the interpreter shuts down, where Python's own handlers are gone) must not
        # turn it into a death by signal (-2).
        _ignore_signals()


def _ignore_signals() -> None:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, signal.SIG_IGN)
