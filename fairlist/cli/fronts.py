"""``pareto`` (the error/unfairness front: the cross-validated sweep or the exact training
front, written as CSV, JSON and a plot) and ``verify`` (one problem solved by both exact
engines, which must agree)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import numpy as np
import typer

from ..errors import InvalidParameterError
from ..pareto import SWEEP_MAX_NODES, SWEEP_N_EPSILONS, SWEEP_POLICIES, SWEEP_TIME_LIMIT
from ..solvers.base import DEFAULT_LAM, DEFAULT_WARM_START_SECONDS
from ..solvers.bnb import PAPER_POLICIES, POLICIES
from ..table import read_table
from .options import (
    Backend,
    ColumnsOpt,
    CutsOpt,
    DataArg,
    DropOpt,
    Engine,
    EngineOpt,
    EpsilonOpt,
    GroupsName,
    GroupsOpt,
    JsonOpt,
    KeepIdOpt,
    LamOpt,
    MaxAntecedentsOpt,
    MaxLengthOpt,
    MemoryLimitOpt,
    MetricName,
    MetricOpt,
    MissingOpt,
    ProtectedOpt,
    SensitiveOpt,
    TargetOpt,
    TimeLimitOpt,
    VerifyThreadsOpt,
    WarmStartOpt,
    WarmStartSecondsOpt,
    WeightOpt,
    WorkersOpt,
    as_limit,
    check_output,
)
from .program import (
    EXIT_DISAGREE,
    EXIT_INCONCLUSIVE,
    emit_json,
    interrupted_code,
    user_errors,
)
from .progress import progress_bar

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
    n_jobs: WorkersOpt = None,
    backend: BackendOpt = None,
    tail_threads: TailThreadsOpt = False,
    seed: SeedOpt = 0,
    output: FrontOutputOpt = Path("pareto.csv"),
    json_output: JsonOutputOpt = None,
    plot: PlotOpt = None,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    columns: ColumnsOpt = None,
    keep_id_columns: KeepIdOpt = False,
    max_antecedents: MaxAntecedentsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Trace the error/unfairness Pareto front; write CSV/JSON and a plot.

    Ctrl-C (or SIGTERM) stops the sweep: the front of the fits done is written, every fit done
    goes to the JSON (--json-output, else OUTPUT's name with .partial.json), and the exit
    status is 130 (143).
    """
    with user_errors(as_json):
        if exact and cv is not None:
            raise InvalidParameterError("--exact and --cv K are two different fronts: pick one")
        pols = [p.strip() for p in policies.split(",") if p.strip()]
        _check_sweep_options(pols, backend)
        outputs = {"--output": output, "--json-output": json_output, "--plot": plot}
        for option, path in outputs.items():
            check_output(path, option)  # before the sweep, not after minutes of it
        table = read_table(
            data,
            target,
            sensitive,
            protected,
            drop,
            groups=groups.value,
            handle_missing=handle_missing and handle_missing.value,
            cuts=cuts and cuts.value,
            columns=columns,
            max_antecedents=max_antecedents,
            keep_id_columns=keep_id_columns,
        )
        if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InvalidParameterError(f"--plot must end in .png, .svg or .pdf, got {plot.name!r}")
        common = dict(
            metric=metric.value,
            engine=engine.value,
            lam=lam,
            max_length=max_length,
            max_nodes=as_limit(max_nodes),
            time_limit=as_limit(time_limit),
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
        emit_json(result.to_dict() | {"files": {k: v and str(v) for k, v in files.items()}})
    else:
        _print_front(result, output, json_output, plot)
    if result.partial:
        raise typer.Exit(interrupted_code())


def _check_sweep_options(policies: list[str], backend: Any) -> None:
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
    from ..pareto import cross_validated_front, training_front

    data = (table.X, table.y, table.sensitive, table.protected)
    with progress_bar(not as_json) as (report, note):
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
    from ..plotting import plot_fronts, save_figure

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


# --------------------------------------------------------------------------- verify
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
    n_jobs: VerifyThreadsOpt = 1,
    warm_start: WarmStartOpt = None,
    warm_start_seconds: WarmStartSecondsOpt = DEFAULT_WARM_START_SECONDS,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    columns: ColumnsOpt = None,
    keep_id_columns: KeepIdOpt = False,
    max_antecedents: MaxAntecedentsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Solve with both exact engines and check that they agree (exit 4 if they disagree, 6 if
    a limit stopped an engine before either showed: inconclusive).

    --warm-start cpsat starts bnb from a short CP-SAT run's list (out of --time-limit): the two
    engines then no longer run independently until bnb's search, but bnb still certifies its
    optimum on its own.

    One Ctrl-C (or SIGTERM) stops the verification: the engine running reports its best so
    far, one not yet started reads "not run", and the exit status is 130 (143).
    """
    from ..solvers import Limits, Problem
    from ..verification import verify as run_verify

    with user_errors(as_json):
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
            columns=columns,
            max_antecedents=max_antecedents,
            keep_id_columns=keep_id_columns,
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
            time_limit=as_limit(time_limit),
            majority_only=majority_only,
            n_jobs=n_jobs,
            **(
                {"warm_start_engine": warm_start.value, "warm_start_seconds": warm_start_seconds}
                if warm_start is not None
                else {}
            ),
        )
    if as_json:
        emit_json(
            {
                "agree": report.agree,
                "conclusive": report.conclusive,
                "disagree": report.disagree,
                "max_length": report.max_length,
                "message": report.message,
                "interrupted": report.interrupted,
                "bnb": _result_doc(report.bnb),
                "cpsat": _result_doc(report.cpsat),
            }
        )
    else:
        typer.echo(report.summary())
        if report.bnb is not None and "warm_start_cpsat" in report.bnb.stats:
            from ..progress import warm_start_text

            typer.echo(f"bnb's {warm_start_text(report.bnb.stats['warm_start_cpsat'])}")
    if report.interrupted:
        raise typer.Exit(interrupted_code())
    if report.disagree:
        raise typer.Exit(EXIT_DISAGREE)
    if not report.agree:
        raise typer.Exit(EXIT_INCONCLUSIVE)


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
        **(
            {"warm_start": result.stats["warm_start_cpsat"]}
            if "warm_start_cpsat" in result.stats
            else {}
        ),
    }
