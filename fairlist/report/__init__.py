"""An audit report of a fitted rule list: one self-contained HTML file a reviewer can read.

:func:`render_report` (and :func:`write_report`, ``fairlist report MODEL --data TRAIN``) says in
plain words:

* the rule list, rule by rule, with the training rows each rule decides;
* what was certified (:mod:`~fairlist.report.certificate`): the status, the objective, the
  lower bound and the gap, the space the list is optimal over (its length, its antecedents,
  the labels a rule may predict) and the antecedent budget that chose those antecedents;
* each group's confusion counts and rates on the training data and, when given, on held-out
  data, with confidence intervals (Wilson's for a rate, Newcombe's for a gap:
  :mod:`~fairlist.report.intervals`), and whether the cap holds on the held-out data within
  them (:mod:`~fairlist.report.audit`);
* where the model stands on a Pareto front, when one is given (``front``: the CSV or JSON
  ``fairlist pareto`` writes; certified points drawn filled: :mod:`~fairlist.report.front`);
* with ``delta``: the least unfair list within ``delta`` of the optimum and the predictive
  multiplicity of the lists within ``delta`` (:mod:`~fairlist.report.alternatives`).

The page needs nothing from the network: its style is inline, it names no web font (the
reader's system font shows it), and its figures are PNG images inside the file (``data:``
URIs). Templates are Jinja2's (the ``report`` extra: ``pip install 'fairlist[report]'``),
shipped in the package (``fairlist/report/templates``) and read with :mod:`importlib.resources`.

>>> import numpy as np
>>> from fairlist import FairRuleListClassifier
>>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
>>> y, s = [1, 1, 0, 0, 1, 0], [1, 1, 1, 0, 0, 0]
>>> clf = FairRuleListClassifier(lam=0.01, epsilon=0.5).fit(X, y, sensitive_features=s)
>>> page = render_report(clf, X, y, s)
>>> page.startswith("<!DOCTYPE html>"), "Certified optimal." in page
(True, True)
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any

from .._json import write_text
from .._version import __version__
from ..errors import FairlistError
from ..metric_table import METRICS, RATES
from .alternatives import Alternatives, alternatives
from .audit import CELLS, SplitAudit, audit_split
from .certificate import Certificate, certificate
from .front import Front, position, read_front

__all__ = [
    "render_report",
    "write_report",
    "ReportDependencyError",
    "Certificate",
    "SplitAudit",
    "Alternatives",
    "Front",
]


class ReportDependencyError(FairlistError, ImportError):
    """The report needs Jinja2, which is not installed (``pip install 'fairlist[report]'``)."""


def _environment() -> Any:
    """The Jinja2 environment of the package's templates (autoescaped HTML)."""
    try:
        import jinja2
    except ImportError:
        raise ReportDependencyError(
            "the HTML report needs Jinja2, which is not installed: pip install 'fairlist[report]'"
        ) from None
    folder = importlib.resources.files(__name__) / "templates"

    def load(name: str) -> str:
        return (folder / name).read_text(encoding="utf-8")

    return jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _rule_rows(clf: Any) -> list[dict[str, Any]]:
    """The rule list as rows: position, keyword, condition, prediction, training rows."""
    table = clf.get_rules()
    k = len(table) - 1
    rows = []
    for i, row in table.iterrows():
        rows.append(
            {
                "position": i + 1,
                "keyword": "else" if i == k else ("if" if i == 0 else "else if"),
                "condition": "" if i == k else str(row["antecedent"]),
                "prediction": str(row["prediction"]),
                "n_samples": float(row["n_samples"]),
                "positive_rate": float(row["positive_rate"]),
            }
        )
    return rows


def _summary(clf: Any, cert: Certificate, splits: list[SplitAudit]) -> list[str]:
    """The report's opening sentences."""
    train = splits[0]
    metric = clf.metric_.short_name
    cap = f"at most {clf.epsilon:g}" if clf.epsilon is not None else "not capped"
    lines = [
        f"A rule list of {len(clf.rule_list_)} rule(s) predicting {clf.classes_[1]!s} or "
        f"{clf.classes_[0]!s}. Its {metric} unfairness is {cap} on the training data "
        f"({train.unfairness.value:.3f}); its training accuracy is {train.accuracy:.3f}.",
        cert.headline,
    ]
    for split in splits[1:]:
        lines.append(
            f"On the {split.split} data ({split.n_rows:,} rows) its accuracy is "
            f"{split.accuracy:.3f}. {split.verdict}"
        )
    return lines


def render_report(
    clf: Any,
    X: Any,
    y: Any,
    sensitive_features: Any = None,
    protected: Any = None,
    *,
    sample_weight: Any = None,
    X_test: Any = None,
    y_test: Any = None,
    sensitive_features_test: Any = None,
    sample_weight_test: Any = None,
    front: Any = None,
    delta: float | None = None,
    level: float = 0.95,
    title: str | None = None,
    data_name: str = "",
    test_name: str = "",
    time_limit: float | None = 60.0,
) -> str:
    """The audit report of the fitted ``clf`` as the text of one HTML page.

    Parameters
    ----------
    clf : FairRuleListClassifier
        Fitted (or loaded: :meth:`~fairlist.FairRuleListClassifier.load`).
    X, y, sensitive_features, protected, sample_weight
        The training data, as ``fit`` took it (``sensitive_features``: the groups, or the
        names of columns of ``X``).
    X_test, y_test, sensitive_features_test, sample_weight_test
        Held-out data (optional; ``sensitive_features_test`` defaults to
        ``sensitive_features`` when that names columns).
    front : path, ParetoResult or DataFrame, optional
        A Pareto front (``fairlist pareto``'s CSV or JSON): the model's place on it.
    delta : float, optional
        Add the less-discriminatory-alternative statement and the multiplicity of the lists
        within ``delta`` of the optimum (two searches on the training data, each bounded by
        ``time_limit`` seconds).
    level : float
        Confidence level of the intervals (0.95).
    title, data_name, test_name : str
        The page's title and the names of the two data sets, for the reader.

    Returns
    -------
    str
        The HTML page (UTF-8 text; write it with :func:`write_report`).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(clf, "rule_list_")
    if not 0 < level < 1:
        from ..errors import InvalidParameterError

        raise InvalidParameterError(f"level must be in (0, 1), got {level!r}")
    environment = _environment()
    splits = [
        audit_split(
            clf, X, y, sensitive_features, protected, sample_weight, source=data_name, level=level
        )
    ]
    if X_test is not None:
        if y_test is None:
            from ..errors import DataError

            raise DataError("X_test is given without y_test: the report needs both")
        s_test = sensitive_features_test
        if s_test is None:
            if not isinstance(sensitive_features, (str, list, tuple)):
                from ..errors import DataError

                raise DataError(
                    "sensitive_features_test is required when sensitive_features holds values"
                )
            s_test = sensitive_features
        splits.append(
            audit_split(
                clf,
                X_test,
                y_test,
                s_test,
                protected,
                sample_weight_test,
                split="test",
                source=test_name,
                level=level,
            )
        )
    cert = certificate(clf)
    compared = METRICS[clf.metric_].rates
    from .figures import front_figure, group_rates_figure

    rates_uri, rates_alt = group_rates_figure(splits, compared)
    front_part = None
    if front is not None:
        read = read_front(front)
        on = splits[-1] if read.split == "test" and len(splits) > 1 else splits[0]
        model = (on.unfairness.value, 1 - on.accuracy)
        uri, alt = front_figure(read, model, clf.metric_.short_name, on.split)
        front_part = {
            "source": read.source,
            "split": read.split,
            "n_points": len(read.points),
            "n_certified": int(read.points["certified"].sum()),
            "position": position(read, *model),
            "model_split": on.split,
            "figure": uri,
            "alt": alt,
        }
    extra = None
    if delta is not None:
        extra = alternatives(
            clf,
            X,
            y,
            sensitive_features,
            protected,
            sample_weight,
            delta=delta,
            time_limit=time_limit,
        )
    template = environment.get_template("report.html.j2")
    return template.render(
        title=title or f"Fair rule list: {clf.metric_.short_name} audit",
        version=__version__,
        summary=_summary(clf, cert, splits),
        rule_text=str(clf.rule_list_),
        rules=_rule_rows(clf),
        certificate=cert,
        splits=splits,
        cells=CELLS,
        rates=[(r, RATES[r].label, RATES[r].description) for r in RATES],
        compared=compared,
        metric=clf.metric_.short_name,
        metric_gap=METRICS[clf.metric_].gap,
        epsilon=clf.epsilon,
        level=level,
        rates_figure=rates_uri,
        rates_alt=rates_alt,
        front=front_part,
        alternatives=extra,
        model_unfairness=clf.unfairness_,
        model_objective=clf.objective_,
    )


def write_report(path: str | Path, clf: Any, X: Any, y: Any, *args: Any, **kwargs: Any) -> Path:
    """:func:`render_report`'s page written to ``path`` (UTF-8, atomically); returns the
    path."""
    html = render_report(clf, X, y, *args, **kwargs)
    write_text(path, html)
    return Path(path)
