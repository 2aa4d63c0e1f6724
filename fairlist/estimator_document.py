"""A fitted :class:`~fairlist.estimator.FairRuleListClassifier` as its model document and back.

:meth:`~fairlist.estimator.FairRuleListClassifier.to_dict` writes, and
:meth:`~fairlist.estimator.FairRuleListClassifier.from_dict` reads, the JSON document a saved
model is (parameters, rule list, classes, per-rule and per-group training counts, the fitted
binarizer, training figures). :mod:`fairlist.model_file` owns the schema and checks a document
before :func:`from_model_document` reads it; this module maps the fitted attributes onto its
fields. Never pickle.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._json import jsonable
from ._version import __version__
from .binarize import Binarizer
from .metrics import Metric
from .model_file import MODEL_FORMAT, MODEL_VERSION
from .rulelist import Rule, RuleList
from .solvers import Result, Status, StopReason

__all__ = ["model_document", "from_model_document"]


def model_document(clf: Any, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The fitted estimator ``clf`` as a JSON-ready document (``metadata`` stored as is; None:
    the loaded model's ``metadata_``, if any)."""
    params = clf.get_params(deep=False)
    if not isinstance(params["engine"], str):
        params["engine"] = getattr(params["engine"], "name", type(params["engine"]).__name__)
    params["metric"] = Metric.parse(params["metric"]).name.lower()
    if isinstance(params["binarizer"], Binarizer):
        params["binarizer"] = {"Binarizer": params["binarizer"].get_params()}
    doc: dict[str, Any] = {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "fairlist_version": __version__,
        "params": params,
        "classes": jsonable(clf.classes_),
        "n_features_in": int(clf.n_features_in_),
        "rule_list": clf.rule_list_.to_dict(),
        "rule_n_samples": clf._rule_n.tolist(),
        "rule_n_positive": clf._rule_pos.tolist(),
        "sensitive_columns": list(clf.sensitive_columns_),
        "groups": None  # a version-1 model saved without them
        if clf.group_rates_ is None
        else {
            "names": list(clf.group_names_),
            "rule_n_samples": clf._rule_group_n.tolist(),
            "rates": clf.group_rates_.reset_index().to_dict(orient="list"),
        },
        "binarizer": None if clf.binarizer_ is None else clf.binarizer_.to_dict(),
        "training": {
            "status": str(clf.status_),
            "objective": clf.objective_,
            "lower_bound": clf.lower_bound_,
            "certified_length": clf.certified_length_,
            "accuracy": clf.accuracy_,
            "unfairness": clf.unfairness_,
            "metric": clf.metric_.name.lower(),
            "engine": clf.result_.engine,
            "search_space": clf.result_.search_space,
            "stop_reason": str(clf.result_.stop_reason),
            "stats": clf.stats_,
        },
    }
    if hasattr(clf, "feature_names_in_"):
        doc["feature_names_in"] = [str(c) for c in clf.feature_names_in_]
    if metadata is None:
        metadata = getattr(clf, "metadata_", None)
    if metadata:
        doc["metadata"] = dict(metadata)
    return doc


def from_model_document(cls: type, doc: Mapping[str, Any]) -> Any:
    """A fitted ``cls`` (the estimator class) from a document that
    :func:`fairlist.model_file.check_model` accepted."""
    params = dict(doc["params"])
    if isinstance(params.get("binarizer"), Mapping):
        params["binarizer"] = Binarizer(**params["binarizer"]["Binarizer"])
    clf = cls(**params)
    clf.classes_ = np.asarray(doc["classes"])
    clf.n_features_in_ = doc["n_features_in"]
    if doc["feature_names_in"] is not None:
        clf.feature_names_in_ = np.asarray(doc["feature_names_in"], dtype=object)
    rl = doc["rule_list"]
    clf.rule_list_ = RuleList(
        [Rule(a, p) for a, p in rl["rules"]], rl["default"], rl["labels"], rl["feature_names"]
    )
    clf._rule_n = np.asarray(doc["rule_n_samples"])  # ints, or sums of weights
    clf._rule_pos = np.asarray(doc["rule_n_positive"])
    clf.sensitive_columns_ = doc["sensitive_columns"]
    groups = doc["groups"]
    if groups is None:  # a version-1 model without them
        clf.group_names_ = ("protected", "unprotected")
        clf._rule_group_n = np.zeros((len(clf._rule_n), 0))
        clf.group_rates_ = None
    else:
        clf.group_names_ = tuple(groups["names"])
        clf._rule_group_n = np.asarray(groups["rule_n_samples"])
        clf.group_rates_ = pd.DataFrame(groups["rates"]).set_index("group")
    binarizer = doc["binarizer"]
    clf.binarizer_ = None
    if binarizer is not None:
        binarizer = {k: v for k, v in binarizer.items() if k != "names_out"}
        clf.binarizer_ = Binarizer.from_dict(binarizer)
    train = doc["training"]
    clf.status_ = Status(train["status"])
    clf.objective_ = float(train["objective"])
    lam = train["stats"].get("lam", params.get("lam"))  # a model saved before lam_: params
    clf.lam_ = float(lam) if isinstance(lam, numbers.Real) else None
    clf.lower_bound_ = float(train["lower_bound"])
    clf.gap_ = max(0.0, clf.objective_ - clf.lower_bound_)
    clf.certified_length_ = train["certified_length"]
    clf.accuracy_ = float(train["accuracy"])
    clf.unfairness_ = float(train["unfairness"])
    clf.metric_ = Metric.parse(train["metric"])
    clf.stats_ = train["stats"]
    clf.metadata_ = doc["metadata"]
    clf.result_ = Result(
        status=clf.status_,
        rule_list=clf.rule_list_,
        objective=clf.objective_,
        accuracy=clf.accuracy_,
        unfairness=clf.unfairness_,
        lower_bound=clf.lower_bound_,
        stop_reason=StopReason(train["stop_reason"]),
        engine=train["engine"],
        search_space=train["search_space"],
        stats=clf.stats_,
    )
    return clf
