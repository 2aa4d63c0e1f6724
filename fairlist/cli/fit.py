"""``fit`` (learn a fair rule list from a table, print it with its certificate, save the model)
and ``predict`` (a saved model's class, rule and rate for each row of a table)."""

from __future__ import annotations

import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any, Optional

import numpy as np
import typer

from .._json import jsonable
from ..errors import MissingColumnError
from ..metrics import METRIC_RATES
from ..solvers.base import (
    DEFAULT_LAM,
    DEFAULT_MAX_NODES,
    DEFAULT_TIME_LIMIT,
    DEFAULT_WARM_START_SECONDS,
)
from ..table import read_rows, read_table
from .options import (
    ColumnsOpt,
    CutsOpt,
    DataArg,
    DropOpt,
    Engine,
    EngineOpt,
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
    PolicyOpt,
    ProtectedOpt,
    SensitiveOpt,
    TargetOpt,
    ThreadsOpt,
    UnknownOpt,
    WarmStartOpt,
    WarmStartSecondsOpt,
    WeightOpt,
    as_limit,
    check_output,
)
from .program import EXIT_NOT_CERTIFIED, emit_json, interrupted_code, user_errors
from .progress import progress_printer

# fit's own options
GapToleranceOpt = Annotated[
    float,
    typer.Option(help="Stop once the best objective is within this of the lower bound (0: never)."),
]
DeepenLengthOpt = Annotated[
    Optional[int],
    typer.Option(
        help="bnb: certify the lists of at most 1..N rules first (0: off); phases past the "
        "lengths that can still win end at once. Default: every length without --max-length "
        "and with --max-nodes 0 (lam > 0), off otherwise.",
        show_default=False,
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
    deepen_length: DeepenLengthOpt = None,
    warm_start: WarmStartOpt = None,
    warm_start_seconds: WarmStartSecondsOpt = DEFAULT_WARM_START_SECONDS,
    min_support: MinSupportOpt = None,
    require_optimal: RequireOptimalOpt = False,
    output: ModelOutputOpt = None,
    handle_missing: MissingOpt = None,
    cuts: CutsOpt = None,
    columns: ColumnsOpt = None,
    handle_unknown: UnknownOpt = None,
    keep_id_columns: KeepIdOpt = False,
    max_antecedents: MaxAntecedentsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn a fair rule list; print it with its training accuracy, unfairness and certificate.

    The search stops at the first of: the certificate (status optimal), --max-nodes (4,000,000
    by default, about 10 s on COMPAS), --time-limit (60 s by default), --gap-tolerance (off by
    default), or Ctrl-C; it then reports the best list found (status feasible) with the proved
    lower bound and the gap. --warm-start cpsat runs CP-SAT first (--warm-start-seconds, at
    most half of --time-limit, which covers it) and hands its list to the search as its first
    incumbent; the output says what the search did with it.
    """
    with user_errors(as_json), progress_printer(not as_json, data) as callback:
        check_output(output, "--output")
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
            columns=columns,
            max_antecedents=max_antecedents,
        )
        clf = _classifier(
            table,
            min_support,
            max_antecedents,
            callback,
            metric=metric.value,
            epsilon=epsilon,
            lam=lam,
            max_length=max_length,
            engine=engine.value,
            policy=policy and policy.value,
            n_jobs=n_jobs,
            time_limit=as_limit(time_limit),
            max_nodes=as_limit(max_nodes),
            gap_tolerance=as_limit(gap_tolerance),
            memory_limit_mb=memory_limit,
            deepen_length=deepen_length,
            warm_start_engine=warm_start and warm_start.value,
            warm_start_seconds=warm_start_seconds,
            handle_unknown=handle_unknown and handle_unknown.value,
            keep_id_columns=keep_id_columns or None,
        )
        _fit_quietly(clf, table, None)  # (the live line is up from the reading on)
        if output is not None:
            _save_model(clf, table, output, target, sensitive, weight)
    if as_json:
        emit_json(_fit_summary(clf, epsilon, output))
    else:
        _print_fit(clf, epsilon, output)
    _fit_exit(clf, require_optimal, as_json)


def _save_model(
    clf: Any,
    table: Any,
    output: Path,
    target: str | None,
    sensitive: list[str] | None,
    weight: str | None = None,
) -> None:
    """Write the fitted model to ``output`` with the data it was fitted on as metadata (the
    columns' roles: ``fairlist report`` reads them back)."""
    metadata = {
        "data": table.source,
        "target": target,
        "sensitive": sensitive,
        "protected": jsonable(table.protected),
        "weight": weight,
    }
    clf.save(output, metadata=metadata)


def _classifier(
    table: Any,
    min_support: float | None,
    max_antecedents: int | None,
    callback: Any,
    deepen_length: int | None,
    **params: Any,
) -> Any:
    """The estimator ``fit`` runs: the command's settings, the progress callback and, for a
    raw table with ``--min-support`` or ``--max-antecedents`` (0: every antecedent), a
    binarizer with that support or budget."""
    from ..estimator import FairRuleListClassifier

    options: dict[str, Any] = {"progress": callback} if callback else {}
    if deepen_length is not None:  # None: the engine's default, "auto"
        options["deepen_length"] = deepen_length
    binarizer: Any = "auto"
    if table.sensitive_columns and (min_support is not None or max_antecedents is not None):
        from ..binarize import Binarizer

        binarizer = Binarizer()
        if min_support is not None:
            binarizer.set_params(min_support=min_support)
        if max_antecedents is not None:  # 0: every antecedent
            binarizer.set_params(max_antecedents=max_antecedents or None)
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
        "warm_start": clf.stats_.get("warm_start_cpsat"),  # None: no warm start asked for
        "rule_list": clf.rule_list_.to_dict(),
        "model": str(output) if output else None,
    }


def _fit_exit(clf: Any, require_optimal: bool, as_json: bool) -> None:
    """Exit 130/143 after an interrupt, 5 under --require-optimal without a certificate."""
    stop = clf.result_.stop_reason
    if str(stop) == "interrupted":
        raise typer.Exit(interrupted_code())
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
    if "warm_start_cpsat" in clf.stats_:
        from ..progress import warm_start_text

        typer.echo(warm_start_text(clf.stats_["warm_start_cpsat"]))
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

    from ..estimator import FairRuleListClassifier

    with user_errors(as_json):
        check_output(output, "--output")
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
        emit_json({"n_samples": len(result), "predictions": result.to_dict(orient="records")})
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
