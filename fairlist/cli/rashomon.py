"""``rashomon``: every fair rule list within ``--delta`` of the optimum, certified, with its
views (the classifiers by objective, each by its shortest spelling with the count of its
spellings; the fairest classifier; the antecedents most used; where the classifiers disagree;
the identical columns merged, once, after the tables), as text or JSON, and a histogram of
their unfairness."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import FairlistError
from ..solvers.base import DEFAULT_LAM, DEFAULT_MAX_NODES, DEFAULT_TIME_LIMIT
from ..table import read_table
from .options import (
    ColumnsOpt,
    CutsOpt,
    DataArg,
    DropOpt,
    EpsilonOpt,
    FitMaxNodesOpt,
    FitTimeLimitOpt,
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
    WeightOpt,
    as_limit,
    check_output,
)
from .program import EXIT_INFEASIBLE, fail, interrupted_code, user_errors
from .progress import show_warning


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
    rows: Annotated[int, typer.Option(min=0, help="Classifiers shown in the table.")] = 20,
    time_limit: FitTimeLimitOpt = DEFAULT_TIME_LIMIT,
    max_nodes: FitMaxNodesOpt = DEFAULT_MAX_NODES,
    memory_limit: MemoryLimitOpt = None,
    plot: Annotated[
        Optional[Path],
        typer.Option(help="Save the unfairness histogram (fairest marked) here (.png/.svg/.pdf)."),
    ] = None,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    columns: ColumnsOpt = None,
    keep_id_columns: KeepIdOpt = False,
    max_antecedents: MaxAntecedentsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every fair rule list within --delta of the optimum (the Rashomon set), certified.

    Lists that predict alike on the training rows are one classifier: prints the number of
    classifiers, the first --rows of them by objective (each by its shortest spelling, its rules'
    predictions shown, and the number of its spellings), the fairest classifier (the less
    discriminatory alternative), the antecedents most used and where the classifiers disagree,
    by group; then the identical columns merged before the search. --max-lists keeps the
    lists of least objective; a limit or Ctrl-C returns the partial set. Either is marked
    incomplete, with the objective below which it is complete. --time-limit covers the whole
    command: what reads every list (the grouping, the fairest classifier, the multiplicity, the
    JSON lists, the plot) covers the lists it reached in time, and says so. No fair list: exit 3.
    """
    import time

    from ..rashomon import rashomon_set

    start = time.perf_counter()
    limit = as_limit(time_limit)
    with user_errors(as_json):
        if plot is not None:
            check_output(plot, "--plot")
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
            max_nodes=as_limit(max_nodes),
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
                show_warning(f"the time limit cut the JSON lists: {covered} of {len(found)}", None)
        else:
            text, covered = found._summary(rows, None, deadline)
            typer.echo(text)
        if plot is not None:  # the lists the views covered
            from ..plotting import plot_rashomon_unfairness, save_figure

            save_figure(plot_rashomon_unfairness(found.head(covered)), plot)
    except KeyboardInterrupt:
        fail("interrupted while writing the set", interrupted_code())
    except (FairlistError, OSError) as exc:  # the plot's (after the set: on standard error)
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    if interrupted:  # the partial set is printed, then 130 (143)
        raise typer.Exit(interrupted_code())
    if not len(found):  # no fair list: as fit's infeasible (docs/cli.md)
        raise typer.Exit(EXIT_INFEASIBLE)
