"""The baselines beside the rule lists: fairlearn's ExponentiatedGradient around a logistic
regression and a boosted model, and the unconstrained references (:data:`BASELINES`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metric_table import SHORT_NAMES
from ..metrics import unfairness
from ..sweep import SweepData

# --------------------------------------------------------------------------- baselines
#: fairlearn's reduction constraint for each measure it implements (PP and CUAE have none).
FAIRLEARN_CONSTRAINTS = {
    "SP": "DemographicParity",
    "PE": "FalsePositiveRateParity",
    "EOpp": "TruePositiveRateParity",
    "EOdds": "EqualizedOdds",
}


def _logistic_regression(seed: int):
    from sklearn.linear_model import LogisticRegression

    # lbfgs: 2.3 s on Adult's 24,000 x 212 training folds where liblinear takes 13 s.
    return LogisticRegression(solver="lbfgs", max_iter=1000, random_state=seed)


def _boosted_trees(seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier

    # A small model: ExponentiatedGradient refits it once per iteration.
    return HistGradientBoostingClassifier(
        max_iter=20, max_leaf_nodes=15, early_stopping=False, random_state=seed
    )


@dataclass(frozen=True)
class Baseline:
    """A comparison method: how to build its model, and whether a bound constrains it."""

    label: str  # legend text
    model: Callable[[int], Any]  # seed -> unfitted scikit-learn classifier
    constrained: bool  # ExponentiatedGradient around the model, one point per bound
    options: str  # the model's hyperparameters, part of every record's key


#: Comparison methods by name (adding one is adding an entry).
BASELINES: dict[str, Baseline] = {
    "expgrad_lr": Baseline("ExpGrad(logistic regression)", _logistic_regression, True, "lbfgs"),
    "expgrad_gbm": Baseline("ExpGrad(boosted trees)", _boosted_trees, True, "hgb20x15"),
    "lr": Baseline("logistic regression", _logistic_regression, False, "lbfgs"),
    "gbm": Baseline("boosted trees", _boosted_trees, False, "hgb20x15"),
}


def fit_baseline(
    data: SweepData,
    name: str,
    metric: str | None,
    bound: float | None,
    fold: int,
    seed: int,
    iterations: int,
) -> dict[str, Any]:
    """One baseline fit on a training fold, measured on its test fold under every metric."""
    import warnings

    from threadpoolctl import threadpool_limits

    baseline = BASELINES[name]
    train, test = data.fold != fold, data.fold == fold
    X = data.X.astype(np.float64)
    model = baseline.model(seed)
    # One thread: results that do not depend on the machine's core count, and no
    # oversubscription when several fits run side by side.
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if baseline.constrained:
            from fairlearn import reductions

            constraint = getattr(reductions, FAIRLEARN_CONSTRAINTS[metric])(difference_bound=bound)
            model = reductions.ExponentiatedGradient(
                model, constraints=constraint, max_iter=iterations
            )
            model.fit(X[train], data.y[train], sensitive_features=data.protected[train])
            predict = lambda rows: model.predict(X[rows], random_state=seed)  # noqa: E731
        else:
            model.fit(X[train], data.y[train])
            predict = lambda rows: model.predict(X[rows])  # noqa: E731
        return split_scores(data, predict(train), predict(test), train, test)


def split_scores(data: SweepData, pred_train, pred_test, train, test) -> dict[str, Any]:
    """Error and every measure's unfairness, on the training and the test fold."""
    out: dict[str, Any] = {"status": "done"}
    for split, rows, pred in (("train", train, pred_train), ("test", test, pred_test)):
        pred = np.asarray(pred).astype(np.uint8)
        y, g = data.y[rows], data.protected[rows]
        out[f"{split}_error"] = float(np.mean(pred != y))
        out[f"{split}_unfairness"] = {m: unfairness(y, pred, g, m) for m in SHORT_NAMES}
    return out
