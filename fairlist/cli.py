"""The ``fairlist`` command line.

Commands: ``fit``, ``predict``, ``pareto``, ``verify``, ``datasets``, ``show``. ``DATA`` is a CSV
file or a built-in data set name (``compas``, ``adult``; see ``fairlist datasets``). A CSV whose
columns (other than the target and the sensitive one) are all 0/1 is used as antecedents as is;
otherwise the columns go through :class:`fairlist.binarize.Binarizer`.

Exit codes:

====  =====================================================================
0     success
1     error (bad data, bad value, missing file; one readable line on stderr)
2     usage error (unknown option, missing argument; printed by Typer, a JSON object under
      ``--json``)
3     no fair rule list: infeasible (proved) or none found before a limit
4     ``verify``: the two engines disagree or did not both finish
5     ``fit --require-optimal``: a limit stopped the search before a certificate
130   interrupted by Ctrl-C (SIGINT): the best result so far is printed and written
      (``fit``'s model, stop reason ``interrupted``; ``pareto``'s points, partial;
      ``verify``'s engines, one not yet started reads ``not run``), or the one line
      ``error: interrupted before any result`` when the interrupt came before any
      result (at any moment of start-up too: ``fairlist.interrupts.exit_on_signals``)
143   terminated by SIGTERM (a scheduler, a container, ``timeout``): as 130
====  =====================================================================

SIGTERM is handled as Ctrl-C (:class:`fairlist.interrupts.InterruptSignals`, installed for the
length of a command): one signal stops the whole command, worker processes included.

Library errors are caught here only, and printed as one readable line.
"""

from __future__ import annotations

import enum
import json
import math
import os
import sys
import warnings
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Any, Optional

import numpy as np
import typer
import typer.core

from ._json import dumps, jsonable
from ._version import __version__
from .binarize import PARAMETER_CONSTRAINTS as BINARIZER
from .datasets import GROUPS
from .errors import (
    DataError,
    FairlistError,
    InfeasibleError,
    InvalidParameterError,
    MissingColumnError,
)
from .interrupts import InterruptSignals, early_signals, exit_on_signals, started
from .metrics import METRIC_RATES, Metric
from .pareto import SWEEP_MAX_NODES, SWEEP_N_EPSILONS, SWEEP_POLICIES, SWEEP_TIME_LIMIT
from .solvers import ENGINES
from .solvers.base import DEFAULT_LAM, DEFAULT_MAX_NODES, DEFAULT_TIME_LIMIT
from .solvers.bnb import PAPER_POLICIES, POLICIES
from .table import read_rows, read_table


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

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INFEASIBLE, EXIT_DISAGREE = 0, 1, 2, 3, 4
EXIT_NOT_CERTIFIED = 5  # fit --require-optimal: a limit stopped the search before a certificate
EXIT_INTERRUPTED = 130  # 128 + SIGINT (Ctrl-C)
EXIT_TERMINATED = 143  # 128 + SIGTERM

#: The signals that stopped the command being run: SIGTERM is handled as Ctrl-C for the length
#: of a command (the root callback installs the handlers and restores the previous ones after).
_signals = InterruptSignals()


def _interrupted_code() -> int:
    """The exit status of an interrupted command: 130 after Ctrl-C, 143 after SIGTERM."""
    return _signals.exit_code


#: --engine, --metric and --policy choices, from the registries they name (a typo is a usage
#: error, exit 2, and --help lists them).
Engine = enum.Enum("Engine", {name: name for name in ENGINES}, type=str)
MetricName = enum.Enum("MetricName", {m.short_name: m.short_name for m in Metric}, type=str)
PolicyName = enum.Enum("PolicyName", {name: name for name in POLICIES}, type=str)
GroupsName = enum.Enum("GroupsName", {name: name for name in GROUPS}, type=str)
MissingName = enum.Enum(
    "MissingName", {n: n for n in BINARIZER["handle_missing"][0].values}, type=str
)
CutsName = enum.Enum("CutsName", {n: n for n in BINARIZER["numeric"][0].values}, type=str)


class Backend(str, enum.Enum):
    loky = "loky"
    threading = "threading"
    dask = "dask"


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
def _errors(as_json: bool = False):
    """Turn the errors a user's input causes into one line and an exit code: 3 when nothing fair
    exists, 130 on Ctrl-C (143 on SIGTERM), 1 otherwise; under ``--json`` the line is a JSON
    object on stdout (``{"error": ..., "exit_code": ...}``). Anything else is a bug and keeps its
    traceback."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            yield
    except InfeasibleError as exc:
        stop = getattr(getattr(exc, "result", None), "stop_reason", None)
        if str(stop) == "interrupted" or _signals.received:  # stopped before any fair list
            fail("interrupted before any fair rule list was found", _interrupted_code(), as_json)
        fail(str(exc), EXIT_INFEASIBLE, as_json)
    except KeyboardInterrupt:
        fail("interrupted before any result", _interrupted_code(), as_json)
    except (FairlistError, OSError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, EXIT_ERROR, as_json)


def _show_warning(message: Any, category: type, *args: Any, **kwargs: Any) -> None:
    """A library warning as one line on stderr (``warning: ...``), not a source location;
    above ``fit``'s live progress line when one is up, never onto it."""
    if _LIVE_LINE is not None:
        _LIVE_LINE.warn(f"warning: {message}")
        return
    typer.secho(f"warning: {message}", err=True, fg=typer.colors.YELLOW)


def _emit_json(doc: Any) -> None:
    typer.echo(dumps(doc))


# --------------------------------------------------------------------------- shared options
# The options several commands take, declared once (one help text each).
DataArg = Annotated[
    str,
    typer.Argument(
        metavar="DATA", help="CSV file or built-in data set (compas, adult; see `datasets`)."
    ),
]
TargetOpt = Annotated[Optional[str], typer.Option(help="Label column of a CSV.")]
SensitiveOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        help="Sensitive column of a CSV (never an antecedent); repeat it for intersections."
    ),
]
WeightOpt = Annotated[
    Optional[str], typer.Option(help="Column of a CSV holding sample weights (>= 0).")
]
GroupsOpt = Annotated[
    GroupsName,
    typer.Option(help="Groups of a built-in data set: the paper's two, every race, race x sex."),
]
ProtectedOpt = Annotated[
    Optional[str],
    typer.Option(
        help="Compare this group with all the others together (omit: every value is a group; "
        "a 0/1 column's 1 is the protected group)."
    ),
]
DropOpt = Annotated[
    Optional[list[str]],
    typer.Option(help="Column to leave out (repeatable), e.g. a second group indicator."),
]
MetricOpt = Annotated[MetricName, typer.Option(case_sensitive=False, help="Unfairness measure.")]
EpsilonOpt = Annotated[
    Optional[float], typer.Option(help="Maximum unfairness allowed (omit: unconstrained).")
]


def _lam(value: str | float) -> str | float:
    """``--lam``: a number, or ``auto`` (1 % of the minority share; the library's default)."""
    if isinstance(value, (int, float)) or value == "auto":
        return value
    try:
        return float(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is neither a number nor 'auto'") from None


LamOpt = Annotated[
    str,
    typer.Option(
        parser=_lam,
        metavar="FLOAT|auto",
        help="Length penalty per rule (the paper's lambda); auto: 0.01 x the minority share.",
    ),
]
MaxLengthOpt = Annotated[Optional[int], typer.Option(help="Longest rule list (number of rules).")]
EngineOpt = Annotated[Engine, typer.Option(help="Exact engine.")]
PolicyOpt = Annotated[Optional[PolicyName], typer.Option(help="bnb search policy.")]
ThreadsOpt = Annotated[
    int,
    typer.Option(
        "--n-jobs",
        min=-1,
        help="Threads of one solve (-1: every core): bnb's parallel search (a certified list is "
        "the same for any value above 1), CP-SAT's workers.",
    ),
]
TimeLimitOpt = Annotated[Optional[float], typer.Option(help="Seconds per solve (0: none).")]
MaxNodesOpt = Annotated[
    Optional[int], typer.Option(help="bnb trie size limit per solve (0: none).")
]
MemoryLimitOpt = Annotated[
    Optional[float],
    typer.Option(
        help="MB a solve may take (bnb: its search structures; CP-SAT: the process's growth "
        "while it builds and searches; omit: bnb three quarters of the memory, CP-SAT none)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
MissingOpt = Annotated[
    Optional[MissingName],
    typer.Option(help="Missing values in a raw CSV: refuse them, or a column:missing antecedent."),
]
UnknownName = enum.Enum(
    "UnknownName", {n: n for n in BINARIZER["handle_unknown"][0].values}, type=str
)
UnknownOpt = Annotated[
    Optional[UnknownName],
    typer.Option(
        help="A category not seen at fit time, in a column a rule reads, when the saved model "
        "predicts: match none of the column's values (ignore, the default; as export does) or "
        "refuse it (error). Columns no rule reads are never checked."
    ),
]
KeepIdOpt = Annotated[
    bool,
    typer.Option(
        "--keep-id-columns",
        help="Use the columns with nearly one distinct value per row (names, ids, timestamps), "
        "which are otherwise left out with a warning naming them.",
    ),
]
ColumnsOpt = Annotated[
    Optional[str],
    typer.Option(
        help="Comma-separated columns of a CSV to learn from (the target, the sensitive and "
        "the weight columns are kept too); the others are left out, as with --drop.",
    ),
]
CutsOpt = Annotated[
    Optional[CutsName],
    typer.Option(
        help="Raw numeric columns: cut where the labels justify it (MDLP) or at quantiles."
    ),
]


def _limit(value: float | None) -> float | None:
    """A limit option as the library takes it: 0 means none, in every command (the library's
    None; the estimator's ``time_limit=None``)."""
    return value or None


# --------------------------------------------------------------------------- fit
@contextmanager
def _progress_printer(enabled: bool, source: str = ""):
    """A progress callback for ``fit`` (None when not ``enabled`` or not on a terminal: nothing
    on a pipe) that shows the phase running on one live line (reading, binarizing, building the
    search, searching with its nodes, best objective, bound and gap) and keeps a line for each
    phase that ended; warnings print above the live line (see :func:`_show_warning`)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console

    line = _StatusLine(Console(stderr=True), source)
    with line:
        yield line


class _StatusLine:
    """The live line of :func:`_progress_printer`: a callable taking fit's phase dicts
    (``{"phase": ...}``, see ``FairRuleListClassifier._report_phase``) and the engine's search
    dicts (no ``"phase"``: searching)."""

    def __init__(self, console: Any, source: str) -> None:
        from rich.status import Status as RichStatus

        self.console, self.source = console, source
        self.phase, self.info = "reading", {"phase": "reading", "source": source}
        self.since = _clock()
        self.status = RichStatus(_progress_line(self.info), console=console)

    def __enter__(self) -> _StatusLine:
        global _LIVE_LINE
        self.status.start()
        _LIVE_LINE = self
        return self

    def __exit__(self, *exc: Any) -> None:
        global _LIVE_LINE
        _LIVE_LINE = None
        self.status.stop()

    def __call__(self, info: dict[str, Any]) -> None:
        phase = info.get("phase", "searching")
        if phase == "preparing":  # checking the table read: part of reading, on the line
            self.info = {**self.info, **{k: v for k, v in info.items() if k != "phase"}}
        elif phase != self.phase:
            done = _phase_done(self.phase, self.info, info, _clock() - self.since)
            if done:
                self.console.print(done, highlight=False)
            self.phase, self.since = phase, _clock()
            self.info = info
        else:
            self.info = info
        self.status.update(_progress_line(self.info if phase == "preparing" else info))

    def warn(self, text: str) -> None:
        """A warning on its own line, above the live line."""
        from rich.text import Text

        self.console.print(Text(text, style="yellow"))  # (a Text: the style stays on it)


#: The live line of a running ``fit`` (None when there is none): warnings print above it.
_LIVE_LINE: _StatusLine | None = None


def _clock() -> float:
    import time

    return time.monotonic()


def _phase_done(phase: str, info: dict[str, Any], following: dict[str, Any], seconds: float):
    """The kept line of a phase that ended (``following``: the next phase's dict), or None."""
    took = f"({seconds:.1f} s)"
    if phase == "reading":
        return f"read {info.get('source') or 'the data'} {took}"
    if phase == "binarizing":
        made = following.get("antecedents")
        into = f" into {made:,} antecedents" if isinstance(made, int) else ""
        return (
            f"binarized {info.get('rows', 0):,} rows x {info.get('columns', 0):,} columns"
            f"{into} {took}"
        )
    if phase == "building":
        return (
            f"built the search: {info.get('rows', 0):,} rows, "
            f"{info.get('antecedents', 0):,} antecedents {took}"
        )
    return None


def _progress_line(info: dict[str, Any]) -> str:
    """The live line: the phase that runs, or a search's progress (the keys an engine's
    progress dict may hold)."""
    phase = info.get("phase", "searching")
    if phase in ("reading", "preparing"):
        return f"reading {info.get('source') or 'the data'}…"
    if phase == "binarizing":
        return f"binarizing {info.get('rows', 0):,} rows x {info.get('columns', 0):,} columns…"
    if phase == "building":
        return (
            f"building the search: {info.get('rows', 0):,} rows, "
            f"{info.get('antecedents', 0):,} antecedents…"
        )
    parts = [f"searching… {info.get('seconds', 0.0):.1f} s"]
    if "nodes_expanded" in info:
        parts.append(f"{info['nodes_expanded']:,} nodes, trie {info.get('trie_size', 0):,}")
    best, lower = info.get("best_objective"), info.get("lower_bound")
    if isinstance(best, float) and math.isfinite(best):
        parts.append(f"best {best:.6f}")
        if isinstance(lower, float) and math.isfinite(lower):
            parts.append(f"bound {lower:.6f}, gap {max(0.0, best - lower):.6f}")
    else:
        parts.append("no fair list yet")
    if info.get("certified_length"):
        parts.append(f"none better up to {info['certified_length']} rules")
    return ", ".join(parts)


# fit's own options
FitTimeLimitOpt = Annotated[
    float, typer.Option(help="Seconds (a safety net; 0: none, for a reproducible run).")
]
FitMaxNodesOpt = Annotated[
    int,
    typer.Option(help="bnb trie size limit, the paper's budget (0: none)."),
]
GapToleranceOpt = Annotated[
    float,
    typer.Option(help="Stop once the best objective is within this of the lower bound (0: never)."),
]
DeepenLengthOpt = Annotated[
    int,
    typer.Option(
        help="bnb: certify the lists of at most 1..N rules first (0: off); phases past the "
        "lengths that can still win end at once."
    ),
]
MinSupportOpt = Annotated[
    Optional[float],
    typer.Option(help="Support of mined conjunctions (raw data only)."),
]
RequireOptimalOpt = Annotated[
    bool,
    typer.Option(help=f"Exit {EXIT_NOT_CERTIFIED} when a limit stopped the search first."),
]
ModelOutputOpt = Annotated[Optional[Path], typer.Option(help="Write the model as JSON.")]


@app.command()
def fit(
    data: DataArg,
    target: TargetOpt = None,
    sensitive: SensitiveOpt = None,
    protected: ProtectedOpt = None,
    drop: DropOpt = None,
    weight: WeightOpt = None,
    groups: GroupsOpt = GroupsName.paper,
    metric: MetricOpt = MetricName.SP,
    epsilon: EpsilonOpt = None,
    engine: EngineOpt = Engine.bnb,
    lam: LamOpt = DEFAULT_LAM,
    max_length: MaxLengthOpt = None,
    policy: PolicyOpt = None,
    n_jobs: ThreadsOpt = 1,
    time_limit: FitTimeLimitOpt = DEFAULT_TIME_LIMIT,
    max_nodes: FitMaxNodesOpt = DEFAULT_MAX_NODES,
    memory_limit: MemoryLimitOpt = None,
    gap_tolerance: GapToleranceOpt = 0.0,
    deepen_length: DeepenLengthOpt = 0,
    min_support: MinSupportOpt = None,
    require_optimal: RequireOptimalOpt = False,
    output: ModelOutputOpt = None,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    columns: ColumnsOpt = None,
    handle_unknown: UnknownOpt = None,
    keep_id_columns: KeepIdOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Learn a fair rule list; print it with its training accuracy, unfairness and certificate.

    The search stops at the first of: the certificate (status optimal), --max-nodes (4,000,000
    by default, about 10 s on COMPAS), --time-limit (60 s by default), --gap-tolerance (off by
    default), or Ctrl-C; it then reports the best list found (status feasible) with the proved
    lower bound and the gap.
    """
    with _errors(as_json), _progress_printer(not as_json, data) as callback:
        _check_output(output, "--output")
        if columns is not None:
            drop = _drop_all_but(data, columns, [target, weight, *(sensitive or ())], drop)
        table = read_table(
            data,
            target,
            sensitive,
            protected,
            drop,
            min_support,
            antecedents=False,
            weight=weight,
            groups=groups.value,
            handle_missing=handle_missing and handle_missing.value,
            cuts=cuts and cuts.value,
        )
        clf = _classifier(
            table,
            min_support,
            callback,
            metric=metric.value,
            epsilon=epsilon,
            lam=lam,
            max_length=max_length,
            engine=engine.value,
            policy=policy and policy.value,
            n_jobs=n_jobs,
            time_limit=_limit(time_limit),
            max_nodes=_limit(max_nodes),
            gap_tolerance=_limit(gap_tolerance),
            memory_limit_mb=memory_limit,
            deepen_length=deepen_length,
            handle_unknown=handle_unknown and handle_unknown.value,
            keep_id_columns=keep_id_columns or None,
        )
        _fit_quietly(clf, table, None)  # (the live line is up from the reading on)
        if output is not None:
            _save_model(clf, table, output, target, sensitive)
    if as_json:
        _emit_json(_fit_summary(clf, epsilon, output))
    else:
        _print_fit(clf, epsilon, output)
    _fit_exit(clf, require_optimal, as_json)


def _drop_all_but(
    data: str, columns: str, roles: list[str | None], drop: list[str] | None
) -> list[str]:
    """``--drop`` extended by ``--columns``: every column of the CSV ``data`` that is neither
    named by ``columns`` (comma-separated) nor given a role (target, sensitive, weight)."""
    import csv

    path = Path(data)
    if not path.is_file():
        raise DataError(f"--columns applies to a CSV file; {data!r} is not one")
    keep = [c.strip() for c in columns.split(",") if c.strip()]
    if not keep:
        raise DataError("--columns names no column (give them comma-separated: a,b,c)")
    with open(path, newline="", encoding="utf-8-sig") as lines:
        header = next((row for row in csv.reader(lines) if row), [])
    unknown = [c for c in keep if c not in header]
    if unknown:
        shown = ", ".join(header[:8])
        raise MissingColumnError(
            f"--columns {unknown[0]!r} is not a column of {path.name} ({shown}, ...)"
        )
    kept = set(keep) | {c for c in roles if c}
    return [*(drop or ()), *(c for c in header if c not in kept and c not in (drop or ()))]


def _save_model(
    clf: Any, table: Any, output: Path, target: str | None, sensitive: list[str] | None
) -> None:
    """Write the fitted model to ``output`` with the data it was fitted on as metadata."""
    metadata = {
        "data": table.source,
        "target": target,
        "sensitive": sensitive,
        "protected": jsonable(table.protected),
    }
    clf.save(output, metadata=metadata)


def _classifier(
    table: Any, min_support: float | None, callback: Any, deepen_length: int, **params: Any
) -> Any:
    """The estimator ``fit`` runs: the command's settings, the progress callback and, for a
    raw table with ``--min-support``, a binarizer with that support."""
    from .estimator import FairRuleListClassifier

    options: dict[str, Any] = {"progress": callback} if callback else {}
    if deepen_length:
        options["deepen_length"] = deepen_length
    binarizer: Any = "auto"
    if min_support is not None and table.sensitive_columns:
        from .binarize import Binarizer

        binarizer = Binarizer(min_support=min_support)
    return FairRuleListClassifier(
        engine_options=options or None, binarizer=binarizer, **table.binarizer_params, **params
    )


def _fit_quietly(clf: Any, table: Any, status: Any) -> None:
    """Fit ``clf`` on ``table`` (a limit that stops the search is reported, not warned about),
    with the status line up while it runs; the callback is then dropped from the model."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(), status if status is not None else nullcontext():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(
            table.X,
            table.y,
            sensitive_features=table.groups,
            protected=table.protected,
            sample_weight=table.weight,
        )
    clf.set_params(engine_options=None)  # the callback is not part of the model


def _fit_summary(clf: Any, epsilon: float | None, output: Path | None) -> dict[str, Any]:
    """``fit --json``'s document."""
    return {
        "status": str(clf.status_),
        "stop_reason": str(clf.result_.stop_reason),
        "engine": clf.result_.engine,
        "metric": clf.metric_.short_name,
        "epsilon": epsilon,
        "objective": clf.objective_,
        "lam": getattr(clf, "lam_", None),  # the number lam="auto" resolved to
        "lower_bound": clf.lower_bound_,
        "gap": clf.gap_,
        "certified_length": clf.certified_length_,
        "accuracy": clf.accuracy_,
        "unfairness": clf.unfairness_,
        "groups": clf.group_rates_.reset_index().to_dict(orient="records"),
        "length": len(clf.rule_list_),
        "n_samples": int(clf.get_rules()["n_samples"].sum()),
        "n_antecedents": len(clf.rule_list_.feature_names or ()),
        "seconds": clf.stats_.get("seconds"),
        "rule_list": clf.rule_list_.to_dict(),
        "model": str(output) if output else None,
    }


def _fit_exit(clf: Any, require_optimal: bool, as_json: bool) -> None:
    """Exit 130/143 after an interrupt, 5 under --require-optimal without a certificate."""
    stop = clf.result_.stop_reason
    if str(stop) == "interrupted":
        raise typer.Exit(_interrupted_code())
    if require_optimal and str(clf.status_) != "optimal":
        if not as_json:
            typer.secho(
                f"error: not certified ({stop}); --require-optimal", err=True, fg=typer.colors.RED
            )
        raise typer.Exit(EXIT_NOT_CERTIFIED)


def _print_fit(clf: Any, epsilon: float | None, output: Path | None) -> None:
    """The rule list, its training figures and what is certified, for people."""
    typer.echo(str(clf.rule_list_))
    typer.echo("")
    cap = "unconstrained" if epsilon is None else f"<= {epsilon:g}"
    typer.echo(f"training accuracy: {clf.accuracy_:.4f}")
    typer.echo(f"unfairness ({clf.metric_.short_name}): {clf.unfairness_:.4f}  (cap {cap})")
    rates = ["n_samples", *METRIC_RATES[clf.metric_]]
    typer.echo(clf.group_rates_[rates].to_string(float_format=lambda v: f"{v:.4f}"))
    lam = getattr(clf, "lam_", None)
    auto = f" (lam auto = {lam:.3g})" if clf.lam == "auto" and lam is not None else ""
    typer.echo(
        f"status: {clf.status_} ({clf.result_.stop_reason}); objective {clf.objective_:.6f}"
        f"{auto}, lower bound {clf.lower_bound_:.6f}, gap {clf.gap_:.6f}"
    )
    if str(clf.result_.stop_reason) == "gap_limit":
        typer.echo(f"within the gap tolerance: no list is better by more than {clf.gap_:.6f}")
    elif str(clf.status_) != "optimal":
        certified = clf.certified_length_
        typer.echo(
            f"no list of at most {certified} rules is better"
            if certified
            else f"the list is not certified optimal: {_limit_hint(clf.result_.stop_reason)}"
        )
    if str(clf.result_.stop_reason) == "interrupted":
        typer.echo("interrupted: this is the best list found so far")
    if output is not None:
        typer.echo(f"model written to {output}")


def _limit_hint(stop: Any) -> str:
    """What to raise after a search that ``stop`` (a stop reason) ended before a certificate:
    the limit that stopped it, not one that was off."""
    hints = {
        "node_limit": "raise --max-nodes (0: no limit), or accept the gap",
        "time_limit": "raise --time-limit (0: no limit), or accept the gap",
        "memory_limit": "raise --memory-limit, cap --max-length or make fewer antecedents "
        "(--min-support), or accept the gap",
        "interrupted": "the search was stopped; run it longer, or accept the gap",
    }
    return hints.get(str(stop), f"the search stopped ({stop}); accept the gap")


# --------------------------------------------------------------------------- predict
@app.command()
def predict(
    model: Annotated[
        Path, typer.Argument(metavar="MODEL", help="A model written by `fairlist fit --output`.")
    ],
    data: Annotated[
        str,
        typer.Argument(
            metavar="DATA", help="CSV file (raw columns or antecedents) or built-in data set."
        ),
    ],
    output: Annotated[
        Optional[Path],
        typer.Option(
            help="Write a CSV (row id, prediction, rule, rule text, probability); default: stdout."
        ),
    ] = None,
    id_column: Annotated[
        Optional[str],
        typer.Option(
            "--id",
            help="Column of DATA that identifies each row (default: a 'row' "
            "column, the row's number in DATA from 0).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Predict with a saved model; each row gets its id, its class, the rule that fired (its
    position and its text) and that rule's rate of the positive class.

    The rows may be raw (the model binarizes them as at fit time) or antecedents; the target
    and the sensitive columns are ignored when present.
    """
    import pandas as pd

    from .estimator import FairRuleListClassifier

    with _errors(as_json):
        _check_output(output, "--output")
        clf = FairRuleListClassifier.load(model)
        frame = read_rows(data)
        ids = _row_ids(frame, id_column, data)
        needed = [str(c) for c in getattr(clf, "feature_names_in_", [])]
        if needed:  # the model's input columns, in its order (target, groups, others left out)
            absent = [c for c in needed if c not in frame.columns]
            if absent:
                raise MissingColumnError(f"{data} lacks columns the model reads: {absent[:10]}")
            frame = frame[needed]
        explained = clf.explain(frame)
        result = pd.DataFrame(
            {
                ids.name: ids.to_numpy(),
                "prediction": explained["prediction"].to_numpy(),
                "rule": explained["rule"].to_numpy(),
                "rule_text": _rule_texts(explained, len(clf.rule_list_)),
                "probability_positive": explained["positive_rate"].to_numpy(),
            }
        )
        if output is not None and not as_json:
            result.to_csv(output, index=False)
    if as_json:
        _emit_json({"n_samples": len(result), "predictions": result.to_dict(orient="records")})
    elif output is not None:
        typer.echo(f"{len(result)} predictions written to {output}")
    else:
        typer.echo(result.to_csv(index=False), nl=False)


def _row_ids(frame: Any, id_column: str | None, data: str) -> Any:
    """The id of each row: the ``--id`` column, or the row's number in DATA (from 0)."""
    import pandas as pd

    if id_column is None:
        return pd.Series(np.arange(len(frame)), name="row")
    if id_column not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:8]))
        raise MissingColumnError(f"--id {id_column!r} is not a column of {data} ({shown}, ...)")
    return frame[id_column].rename(str(id_column)).reset_index(drop=True)


def _rule_texts(explained: Any, n_rules: int) -> list[str]:
    """Each row's rule in the paper's words: ``if [priors:>3] then [yes]``; the default rule
    (position ``n_rules``) ``else [no]``."""
    return [
        f"else [{pred}]" if rule == n_rules else f"if [{antecedent}] then [{pred}]"
        for antecedent, pred, rule in zip(
            explained["antecedent"], explained["prediction"], explained["rule"], strict=True
        )
    ]


def _check_output(path: Path | None, option: str) -> None:
    """Refuse, before any work, an output file that cannot be written: a folder, a file in a
    folder that does not exist, a folder or file without write permission."""
    if path is None:
        return
    if path.is_dir():
        raise InvalidParameterError(f"{option} {path} is a folder; give a file name in it")
    parent = path.parent
    if not parent.is_dir():
        raise InvalidParameterError(f"{option} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InvalidParameterError(f"{option} {path}: no permission to write there")


# --------------------------------------------------------------------------- pareto
# pareto's own options
ExactOpt = Annotated[
    bool,
    typer.Option(
        "--exact",
        help="The exact training front (adaptive epsilon) instead of the cross-validated sweep.",
    ),
]
NEpsilonsOpt = Annotated[
    int, typer.Option(min=1, help="Grid size in [0, epsilon-max] (the paper: 60).")
]
EpsilonMaxOpt = Annotated[float, typer.Option(help="Largest cap of the grid.")]
CvOpt = Annotated[
    Optional[int],
    typer.Option(min=2, help="Cross-validated sweep with K folds (the default, 5 folds)."),
]
PoliciesOpt = Annotated[
    str,
    typer.Option(
        help="Comma-separated bnb policies pooled into the front (the paper's four: "
        + ",".join(PAPER_POLICIES)
        + ")."
    ),
]
SweepMaxNodesOpt = Annotated[
    int, typer.Option(help="bnb trie size limit per fit (0: none; the paper: 4000000).")
]
SweepTimeLimitOpt = Annotated[float, typer.Option(help="Seconds per fit (a safety net; 0: none).")]
SweepJobsOpt = Annotated[
    Optional[int],
    typer.Option(
        help="Parallel fits, each in a worker process with one thread (joblib: -1 every "
        "core, -2 all but one; not 0): a sweep's fits keep the cores busy themselves; with "
        "--tail-threads, bnb fits also get the cores the workers leave idle."
    ),
]
TailThreadsOpt = Annotated[
    bool,
    typer.Option(
        "--tail-threads",
        help="bnb fits share the cores: the epsilon-0 fits, the slowest, start first on an "
        "equal share of all the cores, the others get cores // workers threads while every "
        "worker is busy and more at the end (the last one every core) "
        "(fairlist.parallel.share_cores; ignored with --backend dask). A fit stopped by "
        "--max-nodes on several threads depends on their timing.",
    ),
]
BackendOpt = Annotated[Optional[Backend], typer.Option(help="joblib backend.")]
SeedOpt = Annotated[int, typer.Option(help="Seed of the folds.")]
FrontOutputOpt = Annotated[Path, typer.Option(help="CSV of the front.")]
JsonOutputOpt = Annotated[
    Optional[Path],
    typer.Option("--json-output", help="JSON of every point with its rule lists."),
]
PlotOpt = Annotated[Optional[Path], typer.Option(help="Plot file (.png, .svg or .pdf).")]


@app.command()
def pareto(
    data: DataArg,
    target: TargetOpt = None,
    sensitive: SensitiveOpt = None,
    protected: ProtectedOpt = None,
    drop: DropOpt = None,
    groups: GroupsOpt = GroupsName.paper,
    metric: MetricOpt = MetricName.SP,
    exact: ExactOpt = False,
    n_epsilons: NEpsilonsOpt = SWEEP_N_EPSILONS,
    epsilon_max: EpsilonMaxOpt = 1.0,
    cv: CvOpt = None,
    policies: PoliciesOpt = ",".join(SWEEP_POLICIES),
    engine: EngineOpt = Engine.bnb,
    lam: LamOpt = DEFAULT_LAM,
    max_length: MaxLengthOpt = None,
    max_nodes: SweepMaxNodesOpt = SWEEP_MAX_NODES,
    time_limit: SweepTimeLimitOpt = SWEEP_TIME_LIMIT,
    memory_limit: MemoryLimitOpt = None,
    n_jobs: SweepJobsOpt = None,
    backend: BackendOpt = None,
    tail_threads: TailThreadsOpt = False,
    seed: SeedOpt = 0,
    output: FrontOutputOpt = Path("pareto.csv"),
    json_output: JsonOutputOpt = None,
    plot: PlotOpt = None,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Trace the error/unfairness Pareto front; write CSV/JSON and a plot.

    Ctrl-C (or SIGTERM) stops the sweep: the front of the fits done is written, every fit done
    goes to the JSON (--json-output, else OUTPUT's name with .partial.json), and the exit
    status is 130 (143).
    """
    with _errors(as_json):
        if exact and cv is not None:
            raise InvalidParameterError("--exact and --cv K are two different fronts: pick one")
        pols = [p.strip() for p in policies.split(",") if p.strip()]
        _check_sweep_options(pols, n_jobs, backend)
        outputs = {"--output": output, "--json-output": json_output, "--plot": plot}
        for option, path in outputs.items():
            _check_output(path, option)  # before the sweep, not after minutes of it
        table = read_table(
            data,
            target,
            sensitive,
            protected,
            drop,
            groups=groups.value,
            handle_missing=handle_missing and handle_missing.value,
            cuts=cuts and cuts.value,
        )
        if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InvalidParameterError(f"--plot must end in .png, .svg or .pdf, got {plot.name!r}")
        common = dict(
            metric=metric.value,
            engine=engine.value,
            lam=lam,
            max_length=max_length,
            max_nodes=_limit(max_nodes),
            time_limit=_limit(time_limit),
            memory_limit_mb=memory_limit,
        )
        sweep = (
            None
            if exact
            else _sweep_params(epsilon_max, n_epsilons, cv, pols, seed, n_jobs, backend)
            | {"tail_threads": tail_threads}
        )
        result = _trace_front(table, sweep, common, as_json)
        json_output = _write_front(result, output, json_output)
        if plot is not None:
            _plot_front(result, plot, exact, metric.value, table.source.split(" ")[0])
    _report_front(result, output, json_output, plot, as_json)


def _sweep_params(
    epsilon_max: float,
    n_epsilons: int,
    cv: int | None,
    policies: list[str],
    seed: int,
    n_jobs: int | None,
    backend: Any,
) -> dict[str, Any]:
    """The sweep's own parameters, as :func:`fairlist.pareto.cross_validated_front` takes them."""
    return dict(
        epsilons=np.linspace(0.0, epsilon_max, n_epsilons),
        cv=cv or 5,
        policies=policies,
        random_state=seed,
        n_jobs=n_jobs,
        backend=backend.value if backend else None,
    )


def _report_front(
    result: Any, output: Path, json_output: Path | None, plot: Path | None, as_json: bool
) -> None:
    """Print the front and the files written (JSON or text); exit 130/143 after an interrupt."""
    if as_json:
        files = {"csv": output, "json": json_output, "plot": plot}
        _emit_json(result.to_dict() | {"files": {k: v and str(v) for k, v in files.items()}})
    else:
        _print_front(result, output, json_output, plot)
    if result.partial:
        raise typer.Exit(_interrupted_code())


def _check_sweep_options(policies: list[str], n_jobs: int | None, backend: Any) -> None:
    """Refuse the sweep options that would otherwise fail deep in a run (or do nothing)."""
    if not policies:
        raise InvalidParameterError(
            f"--policies names no policy; give one or more of {', '.join(POLICIES)}"
        )
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        raise InvalidParameterError(
            f"--policies: unknown policy {unknown[0]!r}; choose from {', '.join(POLICIES)}"
        )
    if n_jobs == 0:
        raise InvalidParameterError("--n-jobs 0 runs nothing; give 1 or more, or -1 (every core)")
    if backend is not None and backend.value == "dask":
        try:
            from distributed import get_client
        except ImportError:
            raise InvalidParameterError(
                "--backend dask needs dask.distributed: pip install 'fairlist[study]'"
            ) from None
        try:
            get_client()
        except ValueError:
            raise InvalidParameterError(
                "--backend dask needs a running Dask client (dask.distributed.Client); from the "
                "command line use --backend loky, or the study's --scheduler ADDRESS"
            ) from None


def _trace_front(table: Any, sweep: dict[str, Any] | None, common: dict, as_json: bool) -> Any:
    """The exact training front (``sweep`` None) or the cross-validated sweep, with a progress
    bar on a terminal and a line every few seconds on a pipe."""
    from .pareto import cross_validated_front, training_front

    data = (table.X, table.y, table.sensitive, table.protected)
    with _progress_bar(not as_json) as (report, note):
        if sweep is None:
            return training_front(*data, progress=_counting(report, note), **common)
        return cross_validated_front(*data, progress=report, on_fit=note, **sweep, **common)


def _write_front(result: Any, output: Path, json_output: Path | None) -> Path | None:
    """Write the front's CSV and, when asked or when the sweep was cut short (so that the fits
    done are not lost), every point as JSON; returns the JSON's path, if any."""
    result.to_csv(output)
    if json_output is None and result.partial:
        json_output = output.with_name(output.stem + ".partial.json")
    if json_output is not None:
        result.to_json(json_output)
    return json_output


def _counting(
    report: Callable[[int, int | None], None], note: Callable[[dict[str, Any]], None]
) -> Callable[[dict[str, Any]], None]:
    """A training front's progress callback: the points found so far (no total)."""
    count = [0]

    def step(row: dict[str, Any]) -> None:
        count[0] += 1
        note(row)
        report(count[0], None)

    return step


def _plot_front(result: Any, plot: Path, exact: bool, metric: str, title: str) -> None:
    from .plotting import plot_fronts, save_figure

    name = "fairlist (training)" if exact else "fairlist"
    save_figure(plot_fronts({name: result}, metric=metric, title=title), plot)


def _print_front(result: Any, output: Path, json_output: Path | None, plot: Path | None) -> None:
    front = result.front
    cols = [result.x, result.y] + (["objective"] if "objective" in front else [])
    cols += ["epsilon"] + (["policy"] if "policy" in front else [])
    typer.echo(front[cols].to_string(index=False) if len(front) else "no point on the front")
    typer.echo(f"{len(front)} Pareto points from {_fits_text(result)}; front written to {output}")
    if json_output is not None:
        typer.echo(f"all points with their rule lists: {json_output}")
    if plot is not None:
        typer.echo(f"plot: {plot}")
    if result.partial:
        typer.echo(
            f"interrupted: the front holds the fits done before the interrupt (partial); "
            f"every fit done is in {json_output}"
        )


def _fits_text(result: Any) -> str:
    """How many fits a front came from: ``105 fits (60 solved, 45 reused)``, and after an
    interrupt how many ran and how many were cancelled."""
    counts = result.settings.get("fits")
    if counts is None:  # the exact front: one solve per row
        return f"{len(result.points)} solves"
    ran = counts["solved"] + counts["reused"]
    text = f"{counts['total']} fits ({counts['solved']} solved, {counts['reused']} reused"
    if result.partial:
        text = (
            f"{ran} of {counts['total']} fits ({counts['solved']} solved, {counts['reused']} "
            f"reused; {counts['interrupted']} interrupted, {counts['not_run']} cancelled"
        )
    return text + ")"


#: Seconds between two progress lines on a pipe.
PIPE_PROGRESS_SECONDS = 5.0


class _PipeProgress:
    """Progress as plain lines on stderr when it is not a terminal (a log, a pipe): one line
    every :data:`PIPE_PROGRESS_SECONDS`, with the fits done, the total and the best so far."""

    def __init__(self) -> None:
        import time

        self._clock = time.monotonic
        self.start = self._clock()
        self.last = self.start
        self.best: tuple[float, float] | None = None  # (error, unfairness)

    def note(self, row: dict[str, Any]) -> None:
        error = row.get("test_error", row.get("error"))
        unfair = row.get("test_unfairness", row.get("unfairness"))
        if isinstance(error, float) and math.isfinite(error):
            if self.best is None or error < self.best[0]:
                self.best = (error, float(unfair))

    def report(self, done: int, total: int | None, force: bool = False) -> None:
        now = self._clock()
        if not force and now - self.last < PIPE_PROGRESS_SECONDS and done != total:
            return
        self.last = now
        text = f"pareto: {done}/{total} fits" if total else f"pareto: {done} solves"
        text += f", {now - self.start:.0f} s"
        if self.best is not None:
            text += f", best error {self.best[0]:.4f} (unfairness {self.best[1]:.4f})"
        typer.echo(text, err=True)


@contextmanager
def _progress_bar(enabled: bool):
    """Progress callbacks ``(report(done, total), note(row))`` (total None: unknown): a rich bar
    on a terminal, a line every few seconds on a pipe, nothing when not ``enabled``."""
    if not enabled:
        yield (lambda done, total: None), (lambda row: None)
        return
    if not sys.stderr.isatty():
        pipe = _PipeProgress()
        yield pipe.report, pipe.note
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("fits", total=None)

        def report(done: int, total: int | None) -> None:
            bar.update(task, completed=done, total=total)

        yield report, (lambda row: None)


# --------------------------------------------------------------------------- verify
@app.command()
def verify(
    data: DataArg,
    target: TargetOpt = None,
    sensitive: SensitiveOpt = None,
    protected: ProtectedOpt = None,
    drop: DropOpt = None,
    weight: WeightOpt = None,
    groups: GroupsOpt = GroupsName.paper,
    metric: MetricOpt = MetricName.SP,
    epsilon: EpsilonOpt = None,
    lam: LamOpt = DEFAULT_LAM,
    max_length: Annotated[
        Optional[int],
        typer.Option(help="Length bound both engines search (default: CP-SAT's exact bound)."),
    ] = None,
    time_limit: TimeLimitOpt = None,
    memory_limit: MemoryLimitOpt = None,
    majority_only: Annotated[bool, typer.Option(help="Search CORELS' majority space.")] = False,
    n_jobs: Annotated[
        int,
        typer.Option(
            "--n-jobs", min=-1, help="Threads of bnb's search (-1: every core); CP-SAT runs one."
        ),
    ] = 1,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Solve with both exact engines and check that they agree (exit 4 if not).

    One Ctrl-C (or SIGTERM) stops the verification: the engine running reports its best so
    far, one not yet started reads "not run", and the exit status is 130 (143).
    """
    from .solvers import Limits, Problem
    from .verification import verify as run_verify

    with _errors(as_json):
        table = read_table(
            data,
            target,
            sensitive,
            protected,
            drop,
            weight=weight,
            groups=groups.value,
            handle_missing=handle_missing and handle_missing.value,
            cuts=cuts and cuts.value,
        )
        problem = Problem.from_data(
            table.X,
            table.y,
            table.sensitive,
            table.protected,
            sample_weight=table.weight,
            metric=metric.value,
            epsilon=epsilon,
            lam=lam,
            limits=Limits(memory_limit_mb=memory_limit),
        )
        report = run_verify(
            problem,
            max_length=max_length,
            time_limit=_limit(time_limit),
            majority_only=majority_only,
            n_jobs=n_jobs,
        )
    if as_json:
        _emit_json(
            {
                "agree": report.agree,
                "conclusive": report.conclusive,
                "max_length": report.max_length,
                "message": report.message,
                "interrupted": report.interrupted,
                "bnb": _result_doc(report.bnb),
                "cpsat": _result_doc(report.cpsat),
            }
        )
    else:
        typer.echo(report.summary())
    if report.interrupted:
        raise typer.Exit(_interrupted_code())
    if not report.agree:
        raise typer.Exit(EXIT_DISAGREE)


@app.command()
def rashomon(
    data: DataArg,
    delta: Annotated[
        float, typer.Option(min=0.0, help="Width of the set: objectives up to optimum + delta.")
    ],
    target: TargetOpt = None,
    sensitive: SensitiveOpt = None,
    protected: ProtectedOpt = None,
    drop: DropOpt = None,
    weight: WeightOpt = None,
    groups: GroupsOpt = GroupsName.paper,
    metric: MetricOpt = MetricName.SP,
    epsilon: EpsilonOpt = None,
    lam: LamOpt = DEFAULT_LAM,
    max_length: MaxLengthOpt = None,
    max_lists: Annotated[
        int,
        typer.Option(min=0, help="Keep the lists of least objective, at most this many (0: all)."),
    ] = 100_000,
    rows: Annotated[int, typer.Option(min=0, help="Lists shown in the table.")] = 20,
    time_limit: FitTimeLimitOpt = DEFAULT_TIME_LIMIT,
    max_nodes: FitMaxNodesOpt = DEFAULT_MAX_NODES,
    memory_limit: MemoryLimitOpt = None,
    plot: Annotated[
        Optional[Path],
        typer.Option(help="Save the unfairness histogram (fairest marked) here (.png/.svg/.pdf)."),
    ] = None,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every fair rule list within --delta of the optimum (the Rashomon set), certified.

    Prints the lists by objective, the fairest member (the less discriminatory alternative),
    the antecedents most used and where the members disagree, by group. --max-lists keeps the
    lists of least objective; a limit or Ctrl-C returns the partial set. Either is marked
    incomplete, with the objective below which it is complete. --time-limit covers the whole
    command: what reads every list (the fairest member, the multiplicity, the JSON lists, the
    plot) covers the lists it reached in time, and says so. No fair list: exit 3.
    """
    import time

    from .rashomon import rashomon_set

    start = time.perf_counter()
    limit = _limit(time_limit)
    with _errors(as_json):
        if plot is not None:
            _check_output(plot, "--plot")
        table = read_table(
            data,
            target,
            sensitive,
            protected,
            drop,
            weight=weight,
            groups=groups.value,
            handle_missing=handle_missing and handle_missing.value,
            cuts=cuts and cuts.value,
        )
        found = rashomon_set(
            table.X,
            table.y,
            table.sensitive,
            protected=table.protected,
            sample_weight=table.weight,
            binarizer=None,
            metric=metric.value,
            epsilon=epsilon,
            lam=lam,
            max_length=max_length,
            delta=delta,
            max_lists=max_lists or None,
            # the table's reading counts too (at least a millisecond is left to the search)
            time_limit=None if limit is None else max(limit - (time.perf_counter() - start), 1e-3),
            max_nodes=_limit(max_nodes),
            memory_limit_mb=memory_limit,
        )
    interrupted = str(found.stop_reason) == "interrupted"
    # What reads every list stops by the time limit (a quarter second of grace for the views
    # when the search took it all), or a quarter second after an interrupt; a signal meanwhile
    # ends the command at once.
    deadline = None if limit is None else start + limit + 0.25
    if interrupted:
        deadline = min(deadline or math.inf, time.perf_counter() + 0.25)
    try:
        if as_json:
            covered = found.write_json(sys.stdout, deadline=deadline)
            if covered < len(found):
                _show_warning(f"the time limit cut the JSON lists: {covered} of {len(found)}", None)
        else:
            text, covered = found._summary(rows, None, deadline)
            typer.echo(text)
        if plot is not None:  # the lists the views covered
            from .plotting import plot_rashomon_unfairness, save_figure

            save_figure(plot_rashomon_unfairness(found.head(covered)), plot)
    except KeyboardInterrupt:
        fail("interrupted while writing the set", _interrupted_code())
    except (FairlistError, OSError) as exc:  # the plot's (after the set: on standard error)
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    if interrupted:  # the partial set is printed, then 130 (143)
        raise typer.Exit(_interrupted_code())
    if not len(found):  # no fair list: as fit's infeasible (docs/cli.md)
        raise typer.Exit(EXIT_INFEASIBLE)


def _result_doc(result) -> dict[str, Any]:
    """An engine's result for ``verify --json``; ``not_run`` for one an interrupt kept off."""
    if result is None:
        return {
            "status": "not_run",
            "objective": None,
            "lower_bound": None,
            "unfairness": None,
            "rule_list": None,
        }
    return {
        "status": str(result.status),
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "unfairness": result.unfairness,
        "rule_list": result.rule_list.to_dict() if result.rule_list is not None else None,
    }


# --------------------------------------------------------------------------- datasets
@app.command()
def datasets(
    as_json: JsonOpt = False,
) -> None:
    """List the built-in data sets and where their files are (or would be downloaded)."""
    with _errors(as_json):
        from .datasets import DATASETS, data_home, fetch_file

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
        _emit_json({"data_home": home, "datasets": rows})
        return
    typer.echo(f"data home (downloads go here): {home}")
    for row in rows:
        typer.echo(f"\n{row['name']}: {row['description']}")
        for f in row["files"]:
            state = f["found"] or f"missing (download from {f['url']})"
            typer.echo(f"  {f['path']}: {state}")


# --------------------------------------------------------------------------- show
@app.command()
def show(
    model: Annotated[
        Path, typer.Argument(metavar="MODEL", help="A rule list or a model saved as JSON.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Print a saved rule list (or a saved model's rule list and training figures)."""
    from .estimator import FairRuleListClassifier
    from .model_file import RULE_LIST_FORMAT, read_document
    from .rulelist import RuleList

    with _errors(as_json):  # the checks of `predict` (and of `load`): a model shown is usable
        doc = read_document(model)
        training = None
        if isinstance(doc, dict) and doc.get("format") == RULE_LIST_FORMAT:
            rule_list = RuleList.from_dict(doc, source=model)
        else:
            clf = FairRuleListClassifier.from_dict(doc, source=model)
            rule_list, training = clf.rule_list_, clf.to_dict()["training"]
    if as_json:
        _emit_json({"rule_list": rule_list.to_dict(), "text": str(rule_list), "training": training})
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


@app.command()
def export(
    model: Annotated[
        Path, typer.Argument(metavar="MODEL", help="A rule list or a model saved as JSON.")
    ],
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
    from ._json import write_text
    from .export import export as export_model
    from .export import read_model

    with _errors(as_json):
        _check_output(output, "--output")  # a folder: said so, not a temporary file's name
        text = export_model(read_model(model), format.value, labels=labels)
        if output is not None:
            write_text(output, text + "\n")
    if as_json:
        _emit_json({"format": format.value, "text": text, "output": output})
    elif output is None:
        typer.echo(text)
    else:
        typer.echo(f"{format.value} written to {output}")


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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
