"""The commands' common options, declared once each (one help text, one range): the choices
read from the registries they name (engines, metrics, policies, groups, the binarizer's
settings), every ``--n-jobs`` checked against the one thread-count constraint
(:data:`fairlist._params.N_JOBS`), the ``Annotated[..., typer.Option(...)]`` aliases the
commands' signatures use (the data and its columns, the problem, the engine and its limits,
the binarizer's settings, the model file, ``--json``), and what turns an option's value into
the library's (:func:`as_limit`, ``--lam``'s parser) or refuses it before any work
(:func:`check_output`).

An option of one command's own meaning (``pareto``'s grid, ``fit --require-optimal``,
``rashomon --delta``) is declared beside that command.
"""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from .._params import N_JOBS, WARM_START_ENGINE
from ..binarize import PARAMETER_CONSTRAINTS as BINARIZER
from ..datasets import GROUPS
from ..errors import InvalidParameterError
from ..metrics import Metric
from ..solvers import ENGINES
from ..solvers.bnb import POLICIES

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


# --------------------------------------------------------------------------- the aliases
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


def _n_jobs(value: int | None) -> int | None:
    """``--n-jobs``: a count of threads or workers as :data:`fairlist._params.N_JOBS` declares
    it (the one declaration; joblib's way, never 0), refused as a usage error (exit 2)."""
    if value is None or any(c.accepts(value) for c in N_JOBS):
        return value
    allowed = " or ".join(map(str, N_JOBS))
    raise typer.BadParameter(f"{value} is not {allowed} (-1: every core, -2: all but one)")


ThreadsOpt = Annotated[
    int,
    typer.Option(
        "--n-jobs",
        callback=_n_jobs,
        help="Threads of one solve (-1: every core, -2: all but one; not 0): bnb's parallel "
        "search (a certified list is the same for any value above 1), CP-SAT's workers.",
    ),
]
VerifyThreadsOpt = Annotated[
    int,
    typer.Option(
        "--n-jobs",
        callback=_n_jobs,
        help="Threads of bnb's search (-1: every core, -2: all but one; not 0); CP-SAT runs one.",
    ),
]
WorkersOpt = Annotated[
    Optional[int],
    typer.Option(
        "--n-jobs",
        callback=_n_jobs,
        help="Parallel fits, each in a worker process with one thread (joblib: -1 every "
        "core, -2 all but one; not 0): a sweep's fits keep the cores busy themselves; with "
        "--tail-threads, bnb fits also get the cores the workers leave idle.",
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
MaxAntecedentsOpt = Annotated[
    Optional[int],
    typer.Option(
        min=0,
        help="Raw columns: the binarizer's antecedent budget, the most informative about the "
        "label kept (omit: 300 for a CSV, every antecedent for a built-in data set; 0: every "
        "antecedent). A certified list is optimal over the kept antecedents.",
    ),
]
CutsOpt = Annotated[
    Optional[CutsName],
    typer.Option(
        help="Raw numeric columns: cut where the labels justify it (MDLP) or at quantiles."
    ),
]


# fit's and rashomon's limits: a safety net by default (the library's defaults)
FitTimeLimitOpt = Annotated[
    float, typer.Option(help="Seconds (a safety net; 0: none, for a reproducible run).")
]
FitMaxNodesOpt = Annotated[
    int,
    typer.Option(help="bnb trie size limit, the paper's budget (0: none)."),
]
# the CP-SAT warm start of fit and verify (the library's warm_start_engine, warm_start_seconds)
WarmStartName = enum.Enum("WarmStartName", {n: n for n in WARM_START_ENGINE[1].values}, type=str)
WarmStartOpt = Annotated[
    Optional[WarmStartName],
    typer.Option(
        help="bnb: let this engine find the first incumbent (cpsat: a short CP-SAT run; omit: "
        "bnb's own beam search). The certificate is the same either way."
    ),
]
WarmStartSecondsOpt = Annotated[
    float,
    typer.Option(
        help="Seconds of the warm start, out of --time-limit (at most half of it; the "
        "library's warm_start_seconds checks the range).",
    ),
]
ModelFileArg = Annotated[
    Path, typer.Argument(metavar="MODEL", help="A rule list or a model saved as JSON.")
]


def as_limit(value: float | None) -> float | None:
    """A limit option as the library takes it: 0 means none, in every command (the library's
    None; the estimator's ``time_limit=None``)."""
    return value or None


def check_output(path: Path | None, option: str) -> None:
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
