"""The ``fairlist`` command line.

Commands: ``fit``, ``predict``, ``pareto``, ``verify``, ``datasets``, ``show``. ``DATA`` is a CSV
file or a built-in data set name (``compas``, ``adult``; see ``fairlist datasets``). A CSV whose
columns (other than the target and the sensitive one) are all 0/1 is used as antecedents as is;
otherwise the columns go through :class:`fairlist.binarize.Binarizer`.

Exit codes:

====  =====================================================================
0     success
1     error (bad data, bad value, missing file; one readable line on stderr)
2     usage error (unknown option, missing argument; printed by Typer)
3     no fair rule list: infeasible (proved) or none found before a limit
4     ``verify``: the two engines disagree or did not both finish
5     ``fit --require-optimal``: a limit stopped the search before a certificate
130   interrupted by Ctrl-C (SIGINT): the best result so far is printed and written
      (``fit``'s model, stop reason ``interrupted``; ``pareto``'s points, partial;
      ``verify``'s engines, one not yet started reads ``not run``), or nothing when
      the interrupt came before any result
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
import sys
import warnings
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import numpy as np
import typer

from ._json import dumps, jsonable
from ._validation import is_binary_table, stray_binary_cell
from ._version import __version__
from .datasets import GROUPS
from .errors import (
    DataError,
    FairlistError,
    InfeasibleError,
    InvalidParameterError,
    MissingColumnError,
)
from .interrupts import InterruptSignals
from .metrics import METRIC_RATES, Metric
from .solvers import ENGINES
from .solvers.bnb import POLICIES

#: The default budget (the estimator's), without importing scikit-learn at start-up.
DEFAULT_MAX_NODES = 4_000_000
DEFAULT_TIME_LIMIT = 60.0

app = typer.Typer(
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
        fail(str(exc), EXIT_INFEASIBLE, as_json)
    except KeyboardInterrupt:
        fail("interrupted before any result", _interrupted_code(), as_json)
    except (FairlistError, OSError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, EXIT_ERROR, as_json)


def _show_warning(message: Any, category: type, *args: Any, **kwargs: Any) -> None:
    """A library warning as one line on stderr (``warning: ...``), not a source location."""
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
LamOpt = Annotated[float, typer.Option(help="Length penalty per rule (the paper's lambda).")]
MaxLengthOpt = Annotated[Optional[int], typer.Option(help="Longest rule list (number of rules).")]
EngineOpt = Annotated[Engine, typer.Option(help="Exact engine.")]
PolicyOpt = Annotated[Optional[PolicyName], typer.Option(help="bnb search policy.")]
TimeLimitOpt = Annotated[Optional[float], typer.Option(help="Seconds per solve.")]
MaxNodesOpt = Annotated[Optional[int], typer.Option(help="bnb trie size limit per solve.")]
MemoryLimitOpt = Annotated[
    Optional[float],
    typer.Option(
        help="MB a solve may take (bnb: its search structures; CP-SAT: the process's growth "
        "while it builds and searches; omit: bnb three quarters of the memory, CP-SAT none)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


# --------------------------------------------------------------------------- data
@dataclass
class Table:
    """What a command needs from ``DATA``."""

    X: Any  # DataFrame: antecedents, or raw columns (with the sensitive ones) when not binarized
    y: Any  # Series of labels (names), or None
    sensitive: Any  # Series (or DataFrame of several columns): the group of each row
    protected: Any  # the protected value (None: every value is a group, or a 0/1 mask)
    source: str  # what was read, for people
    sensitive_columns: list[str] | None = None  # the columns of X holding the groups (raw)
    weight: Any = None  # Series of sample weights, or None

    @property
    def groups(self) -> Any:
        """What fit takes as sensitive_features: the column names of a raw table, else groups."""
        return self.sensitive_columns or self.sensitive


def _dataset_names() -> list[str]:
    from .datasets import DATASETS

    return sorted(DATASETS)


def _typed_value(column: Any, text: str | None) -> Any:
    """``--protected`` read as the sensitive column's type (``1`` is an int on an int column)."""
    if text is None or column.ndim != 1 or column.dtype.kind not in "iufb":
        return text
    try:
        return type(column.iloc[0].item())(float(text))
    except (TypeError, ValueError):
        return text


def read_csv(path: Path) -> Any:
    """The CSV file ``path`` as a DataFrame, exactly as written, or a :class:`DataError` saying
    what is wrong with the file.

    pandas would quietly change some tables: it renames a repeated column name (a second ``y``
    becomes ``y.1``, an antecedent, and the label leaks into the model), names an empty one
    ``Unnamed: 1``, and turns the first field into the index when the rows have one more field
    than the header. So the header is read here (the csv module, first non-blank line) and each
    of those is an error, as are a file without rows and one that is not UTF-8 text.
    """
    import csv

    import pandas as pd

    try:
        with open(path, newline="", encoding="utf-8-sig") as lines:
            header = next((row for row in csv.reader(lines) if row), None)
        if header is None:
            raise DataError(f"{path.name} is empty: no header line")
        frame = pd.read_csv(path, encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path.name} is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except (csv.Error, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{path.name} is not a readable CSV file: {first}") from None
    counts: dict[str, int] = {}
    for name in header:
        counts[name] = counts.get(name, 0) + 1
    repeated = [name for name, count in counts.items() if count > 1]
    if repeated:
        raise DataError(
            f"{path.name} has duplicate column names: {repeated}; every column needs its own name"
        )
    if "" in counts:
        raise DataError(
            f"{path.name}: column {header.index('') + 1} of the header has no name; name every "
            "column (a CSV written by pandas with its index has one: write it with index=False)"
        )
    if not frame.index.equals(pd.RangeIndex(len(frame))) or len(frame.columns) != len(header):
        raise DataError(
            f"{path.name}: the data rows have more fields than the header ({len(header)} names)"
        )
    if len(frame) == 0:
        raise DataError(f"{path.name} has no rows (only a header)")
    return frame


def _check_roles(named: list[tuple[str, str | None]]) -> None:
    """Each column in one role only: a label that is also a group, a weight or dropped, or a
    group given twice, would be learned from (or counted) twice."""
    seen: dict[str, str] = {}
    for option, column in named:
        if column is None:
            continue
        if column in seen:
            first = seen[column]
            same = f"twice as {option}" if first == option else f"as {first} and {option}"
            raise DataError(f"column {column!r} is given {same}; each column has one role")
        seen[column] = option


def load_table(
    data: str,
    target: str | None,
    sensitive: list[str] | None,
    protected: str | None,
    drop: list[str] | None = None,
    min_support: float | None = None,
    need_target: bool = True,
    antecedents: bool = True,
    weight: str | None = None,
    groups: str = "paper",
) -> Table:
    """Read ``DATA``: a built-in data set name or a CSV file.

    A built-in data set comes as the paper's antecedents, with ``groups`` (its sensitive
    groups). A CSV's columns other than the target, the sensitive ones, the weight and ``drop``
    are antecedents when they are all 0/1; otherwise, with ``antecedents=True``, they are
    binarized here (:class:`~fairlist.binarize.Binarizer`, MDLP cuts when there is a target),
    and with ``antecedents=False`` they are returned raw, the sensitive columns included, for
    the estimator to binarize (so that its model keeps the binarizer and predicts raw rows).
    """
    import pandas as pd

    path = Path(data)
    if not path.exists() and data in _dataset_names():
        from .datasets import load_dataset

        kwargs = {} if min_support is None else {"min_support": min_support}
        ds = load_dataset(data, groups=groups, **kwargs)
        y = pd.Series(np.asarray(ds.labels)[ds.y.to_numpy()], name=ds.y.name, index=ds.y.index)
        return Table(ds.X, y, ds.sensitive, ds.protected, f"{data} (built-in, {groups} groups)")
    if not path.exists():
        known = ", ".join(_dataset_names())
        raise FileNotFoundError(f"no file {data!r} and no built-in data set of that name ({known})")
    named = [("--target", target), *(("--sensitive", c) for c in sensitive or ())]
    named += [("--weight", weight)]
    _check_roles([*named, *(("--drop", c) for c in drop or ())])
    frame = read_csv(path)
    if not sensitive:
        raise DataError(f"--sensitive is required with a CSV file (a column of {path.name})")
    if target is None and need_target:
        raise DataError(f"--target is required with a CSV file (a column of {path.name})")
    for name, col in [*named, *(("--drop", c) for c in drop or ())]:
        if col is not None and col not in frame.columns:
            shown = ", ".join(map(str, frame.columns[:8]))
            raise MissingColumnError(
                f"{name} {col!r} is not a column of {path.name} ({shown}, ...)"
            )
    y = frame[target] if target is not None else None
    groups_of = frame[sensitive[0]] if len(sensitive) == 1 else frame[list(sensitive)]
    prot = _typed_value(groups_of, protected)
    weights = frame[weight] if weight is not None else None
    features = frame.drop(columns=[c for c in (target, weight, *sensitive, *(drop or ())) if c])
    if features.shape[1] and is_binary_table(features):  # (no column: the estimator says so)
        return Table(features.astype("uint8"), y, groups_of, prot, str(path), weight=weights)
    stray = stray_binary_cell(features, alone=True)
    if stray is not None and np.isfinite(stray[2]):  # (inf: the binarizer's error names it)
        warnings.warn(
            f"column {stray[0]!r} is 0/1 but for {stray[2]!r} at row {stray[1]}: the table is "
            "read as raw columns and binarized (if it holds antecedents, fix that cell)",
            stacklevel=2,
        )
    if not antecedents:
        raw = frame.drop(columns=[c for c in (target, weight, *(drop or ())) if c])
        return Table(raw, y, groups_of, prot, f"{path} (raw columns)", list(sensitive), weights)
    from .binarize import Binarizer

    kwargs = {} if min_support is None else {"min_support": min_support}
    numeric = "mdlp" if y is not None else "quantile"
    X = Binarizer(numeric=numeric, **kwargs).fit(features, y).transform(features)
    return Table(
        X, y, groups_of, prot, f"{path} (binarized: {X.shape[1]} antecedents)", weight=weights
    )


# --------------------------------------------------------------------------- fit
def _progress_printer(enabled: bool):
    """A progress callback that keeps one status line up to date on a terminal (nothing on a
    pipe): best objective, lower bound, gap, certified length, nodes and time."""
    if not enabled or not sys.stderr.isatty():
        return None, None
    from rich.console import Console
    from rich.status import Status as RichStatus

    status = RichStatus("searching…", console=Console(stderr=True))

    def update(info: dict[str, Any]) -> None:
        status.update(_progress_line(info))

    return update, status


def _progress_line(info: dict[str, Any]) -> str:
    """One line of a search's progress (the keys an engine's progress dict may hold)."""
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
    lam: LamOpt = 0.01,
    max_length: MaxLengthOpt = None,
    policy: PolicyOpt = None,
    time_limit: Annotated[
        float, typer.Option(help="Seconds (a safety net; 0: none, for a reproducible run).")
    ] = DEFAULT_TIME_LIMIT,
    max_nodes: Annotated[
        int,
        typer.Option(help="bnb trie size limit, the paper's budget (0: none)."),
    ] = DEFAULT_MAX_NODES,
    memory_limit: MemoryLimitOpt = None,
    gap_tolerance: Annotated[
        float,
        typer.Option(
            help="Stop once the best objective is within this of the lower bound (0: never)."
        ),
    ] = 0.0,
    deepen_length: Annotated[
        int,
        typer.Option(help="bnb: certify the lists of at most 1..N rules first (0: off)."),
    ] = 0,
    min_support: Annotated[
        Optional[float],
        typer.Option(help="Support of mined conjunctions (raw data only)."),
    ] = None,
    require_optimal: Annotated[
        bool,
        typer.Option(help=f"Exit {EXIT_NOT_CERTIFIED} when a limit stopped the search first."),
    ] = False,
    output: Annotated[Optional[Path], typer.Option(help="Write the model as JSON.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn a fair rule list; print it with its training accuracy, unfairness and certificate.

    The search stops at the first of: the certificate (status optimal), --max-nodes (4,000,000
    by default, about 10 s on COMPAS), --time-limit (60 s by default), --gap-tolerance (off by
    default), or Ctrl-C; it then reports the best list found (status feasible) with the proved
    lower bound and the gap.
    """
    from sklearn.exceptions import ConvergenceWarning

    from .estimator import FairRuleListClassifier

    with _errors(as_json):
        table = load_table(
            data, target, sensitive, protected, drop, min_support, antecedents=False,
            weight=weight, groups=groups.value,
        )  # fmt: skip
        callback, status = _progress_printer(not as_json)
        options: dict[str, Any] = {"progress": callback} if callback else {}
        if deepen_length:
            options["deepen_length"] = deepen_length
        binarizer: Any = "auto"
        if min_support is not None and table.sensitive_columns:
            from .binarize import Binarizer

            binarizer = Binarizer(min_support=min_support)
        clf = FairRuleListClassifier(
            metric=metric.value, epsilon=epsilon, lam=lam, max_length=max_length,
            engine=engine.value, policy=policy and policy.value, time_limit=time_limit or None,
            max_nodes=max_nodes or None, gap_tolerance=gap_tolerance or None,
            memory_limit_mb=memory_limit, engine_options=options or None, binarizer=binarizer,
        )  # fmt: skip
        with warnings.catch_warnings(), status if status is not None else nullcontext():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(
                table.X, table.y, sensitive_features=table.groups, protected=table.protected,
                sample_weight=table.weight,
            )  # fmt: skip
        clf.set_params(engine_options=None)  # the callback is not part of the model
        metadata = {"data": table.source, "target": target, "sensitive": sensitive,
                    "protected": jsonable(table.protected)}  # fmt: skip
        if output is not None:
            clf.save(output, metadata=metadata)
    stop = clf.result_.stop_reason
    summary = {
        "status": str(clf.status_),
        "stop_reason": str(stop),
        "engine": clf.result_.engine,
        "metric": clf.metric_.short_name,
        "epsilon": epsilon,
        "objective": clf.objective_,
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
    if as_json:
        _emit_json(summary)
    else:
        _print_fit(clf, epsilon, output)
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
    typer.echo(
        f"status: {clf.status_} ({clf.result_.stop_reason}); objective {clf.objective_:.6f}, "
        f"lower bound {clf.lower_bound_:.6f}, gap {clf.gap_:.6f}"
    )
    if str(clf.result_.stop_reason) == "gap_limit":
        typer.echo(f"within the gap tolerance: no list is better by more than {clf.gap_:.6f}")
    elif str(clf.status_) != "optimal":
        certified = clf.certified_length_
        typer.echo(
            f"no list of at most {certified} rules is better"
            if certified
            else "the list is not certified optimal: raise --max-nodes or --time-limit, or "
            "accept the gap"
        )
    if str(clf.result_.stop_reason) == "interrupted":
        typer.echo("interrupted: this is the best list found so far")
    if output is not None:
        typer.echo(f"model written to {output}")


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
        typer.Option(help="Write a CSV (prediction, rule, probability); default: stdout."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Predict with a saved model; each row gets its class, the rule that fired and its rate.

    The rows may be raw (the model binarizes them as at fit time) or antecedents; the target
    and the sensitive columns are ignored when present.
    """
    import pandas as pd

    from .estimator import FairRuleListClassifier

    with _errors(as_json):
        clf = FairRuleListClassifier.load(model)
        if Path(data).exists():
            frame = read_csv(Path(data))
        elif data in _dataset_names():
            frame = load_table(data, None, None, None).X
        else:
            raise FileNotFoundError(f"no file {data!r}")
        needed = [str(c) for c in getattr(clf, "feature_names_in_", [])]
        if needed:  # the model's input columns, in its order (target, groups, others left out)
            absent = [c for c in needed if c not in frame.columns]
            if absent:
                raise MissingColumnError(f"{data} lacks columns the model reads: {absent[:10]}")
            frame = frame[needed]
        explained = clf.explain(frame)
        result = pd.DataFrame({
            "prediction": explained["prediction"].to_numpy(),
            "rule": explained["rule"].to_numpy(),
            "probability_positive": explained["positive_rate"].to_numpy(),
        })  # fmt: skip
    if as_json:
        _emit_json({"n_samples": len(result), "predictions": result.to_dict(orient="records")})
    elif output is not None:
        result.to_csv(output, index=False)
        typer.echo(f"{len(result)} predictions written to {output}")
    else:
        typer.echo(result.to_csv(index=False), nl=False)


# --------------------------------------------------------------------------- pareto
@app.command()
def pareto(
    data: DataArg,
    target: TargetOpt = None,
    sensitive: SensitiveOpt = None,
    protected: ProtectedOpt = None,
    drop: DropOpt = None,
    groups: GroupsOpt = GroupsName.paper,
    metric: MetricOpt = MetricName.SP,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="The exact training front (adaptive epsilon) instead of the cross-validated "
            "sweep.",
        ),
    ] = False,
    n_epsilons: Annotated[int, typer.Option(min=1, help="Grid size in [0, epsilon-max].")] = 60,
    epsilon_max: Annotated[float, typer.Option(help="Largest cap of the grid.")] = 1.0,
    cv: Annotated[
        Optional[int],
        typer.Option(help="Cross-validated sweep with K folds (the default, 5 folds)."),
    ] = None,
    policies: Annotated[
        str, typer.Option(help="Comma-separated bnb policies pooled into the front.")
    ] = "bfs,bfs_objective_aware,curiosity,lower_bound",
    engine: EngineOpt = Engine.bnb,
    lam: LamOpt = 0.001,
    max_length: MaxLengthOpt = None,
    max_nodes: MaxNodesOpt = None,
    time_limit: TimeLimitOpt = None,
    memory_limit: MemoryLimitOpt = None,
    n_jobs: Annotated[Optional[int], typer.Option(help="Parallel fits (joblib).")] = None,
    backend: Annotated[Optional[Backend], typer.Option(help="joblib backend.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the folds.")] = 0,
    output: Annotated[Path, typer.Option(help="CSV of the front.")] = Path("pareto.csv"),
    json_output: Annotated[
        Optional[Path],
        typer.Option("--json-output", help="JSON of every point with its rule lists."),
    ] = None,
    plot: Annotated[
        Optional[Path],
        typer.Option(help="Plot file (.png, .svg or .pdf)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Trace the error/unfairness Pareto front; write CSV/JSON and a plot.

    Ctrl-C (or SIGTERM) stops the sweep: the front of the fits done is written, every fit done
    goes to the JSON (--json-output, else OUTPUT's name with .partial.json), and the exit
    status is 130 (143).
    """
    import numpy as np

    from .pareto import cross_validated_front, training_front

    with _errors(as_json):
        if exact and cv is not None:
            raise InvalidParameterError("--exact and --cv K are two different fronts: pick one")
        table = load_table(data, target, sensitive, protected, drop, groups=groups.value)
        if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InvalidParameterError(f"--plot must end in .png, .svg or .pdf, got {plot.name!r}")
        common = dict(
            metric=metric.value, engine=engine.value, lam=lam, max_length=max_length,
            max_nodes=max_nodes, time_limit=time_limit, memory_limit_mb=memory_limit,
        )  # fmt: skip
        with _progress_bar(not as_json) as report:
            if exact:
                count = [0]

                def step(row: dict[str, Any]) -> None:
                    count[0] += 1
                    report(count[0], None)

                result = training_front(
                    table.X, table.y, table.sensitive, table.protected, progress=step, **common
                )
            else:
                result = cross_validated_front(
                    table.X, table.y, table.sensitive, table.protected,
                    epsilons=np.linspace(0.0, epsilon_max, n_epsilons), cv=cv or 5,
                    policies=[p.strip() for p in policies.split(",") if p.strip()],
                    random_state=seed, n_jobs=n_jobs,
                    backend=backend.value if backend else None, progress=report, **common,
                )  # fmt: skip
        result.to_csv(output)
        if json_output is None and result.partial:  # the fits done are not lost: every point
            json_output = output.with_name(output.stem + ".partial.json")
        if json_output is not None:
            result.to_json(json_output)
        if plot is not None:
            from .plotting import plot_fronts, save_figure

            name = "fairlist (training)" if exact else "fairlist"
            ax = plot_fronts({name: result}, metric=metric.value, title=table.source.split(" ")[0])
            save_figure(ax, plot)
    if as_json:
        doc = result.to_dict()
        doc["files"] = {"csv": str(output), "json": json_output and str(json_output),
                        "plot": plot and str(plot)}  # fmt: skip
        _emit_json(doc)
    else:
        _print_front(result, output, json_output, plot)
    if result.partial:
        raise typer.Exit(_interrupted_code())


def _print_front(result: Any, output: Path, json_output: Path | None, plot: Path | None) -> None:
    front = result.front
    cols = [result.x, result.y, "epsilon"] + (["policy"] if "policy" in front else [])
    typer.echo(front[cols].to_string(index=False) if len(front) else "no point on the front")
    typer.echo(
        f"{len(front)} Pareto points from {len(result.points)} fits; front written to {output}"
    )
    if json_output is not None:
        typer.echo(f"all points with their rule lists: {json_output}")
    if plot is not None:
        typer.echo(f"plot: {plot}")
    if result.partial:
        typer.echo(
            f"interrupted: the front holds the fits done before the interrupt (partial); "
            f"every fit done is in {json_output}"
        )


@contextmanager
def _progress_bar(enabled: bool):
    """A rich progress bar fed by ``report(done, total)`` (total None: unknown)."""
    if not enabled:
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task("fits", total=None)

        def report(done: int, total: int | None) -> None:
            bar.update(task, completed=done, total=total)

        yield report


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
    lam: LamOpt = 0.01,
    max_length: Annotated[
        Optional[int],
        typer.Option(help="Length bound both engines search (default: CP-SAT's exact bound)."),
    ] = None,
    time_limit: TimeLimitOpt = None,
    memory_limit: MemoryLimitOpt = None,
    majority_only: Annotated[bool, typer.Option(help="Search CORELS' majority space.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Solve with both exact engines and check that they agree (exit 4 if not).

    One Ctrl-C (or SIGTERM) stops the verification: the engine running reports its best so
    far, one not yet started reads "not run", and the exit status is 130 (143).
    """
    from .solvers import Limits, Problem
    from .verify import verify as run_verify

    with _errors(as_json):
        table = load_table(
            data, target, sensitive, protected, drop, weight=weight, groups=groups.value
        )
        problem = Problem.from_data(
            table.X, table.y, table.sensitive, table.protected, sample_weight=table.weight,
            metric=metric.value,
            epsilon=epsilon, lam=lam, limits=Limits(memory_limit_mb=memory_limit),
        )  # fmt: skip
        report = run_verify(
            problem, max_length=max_length, time_limit=time_limit, majority_only=majority_only
        )
    if as_json:
        _emit_json(
            {
                "agree": report.agree, "conclusive": report.conclusive,
                "max_length": report.max_length, "message": report.message,
                "interrupted": report.interrupted,
                "bnb": _result_doc(report.bnb), "cpsat": _result_doc(report.cpsat),
            }
        )  # fmt: skip
    else:
        typer.echo(report.summary())
    if report.interrupted:
        raise typer.Exit(_interrupted_code())
    if not report.agree:
        raise typer.Exit(EXIT_DISAGREE)


def _result_doc(result) -> dict[str, Any]:
    """An engine's result for ``verify --json``; ``not_run`` for one an interrupt kept off."""
    if result is None:
        return {"status": "not_run", "objective": None, "lower_bound": None,
                "unfairness": None, "rule_list": None}  # fmt: skip
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
            rows.append({"name": name, "description": info.description,
                         "min_support": info.min_support, "files": files})  # fmt: skip
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
        _emit_json({"rule_list": rule_list.to_dict(), "text": str(rule_list),
                    "training": training})  # fmt: skip
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
    output: Annotated[Optional[Path], typer.Option(help="Write here; default: stdout.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a saved rule list as a Python function, an SQL CASE expression or text.

    A model fitted on raw columns tests those columns (see fairlist.export).
    """
    from ._json import write_text
    from .export import export as export_model
    from .export import read_model

    with _errors(as_json):
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
    """The ``fairlist`` program. An interrupt outside a command's own handling (while it imports
    its modules, say) ends in Typer's exit 130; after SIGTERM that becomes 143."""
    try:
        app()
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED and _signals.received:
            raise SystemExit(_signals.exit_code) from None
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
