"""fairlist: certifiably optimal fair rule lists.

Learn short ``if … then … else …`` classifiers that minimise training error plus a length
penalty while an unfairness measure stays under a cap. Two exact engines sit behind one
interface: a C++ branch-and-bound (``engine="bnb"``) and an OR-Tools CP-SAT model
(``engine="cpsat"``).

Example::

    from fairlist import FairRuleListClassifier, load_compas

    data = load_compas()
    clf = FairRuleListClassifier(metric="SP", epsilon=0.05)
    clf.fit(data.X, data.y, sensitive_features=data.protected_mask)
    print(clf.rule_list_)
"""

from __future__ import annotations

from .interrupts import exit_on_signals, started_as_command_line

if started_as_command_line():  # the command line (script or -m), starting up: a signal while
    exit_on_signals()  # it imports ends it with 130/143 and one line, no traceback
    # (fairlist.cli.main's handlers take over; a library import installs nothing)

from importlib import import_module
from pathlib import Path
from typing import Any


def _not_built(folder: Path) -> str:
    source = (folder.parent / "meson.build").is_file()
    why = (
        "That folder is a source checkout, which shadows the installed package: run from "
        "another folder, or install the checkout in editable mode (the extension is then built "
        "in place): pip install meson-python meson ninja cython numpy "
        "&& pip install --no-build-isolation -e ."
        if source
        else "The extension was not built: reinstall fairlist (pip install --force-reinstall "
        "fairlist), which needs a C++17 compiler where no wheel fits this platform."
    )
    return f"fairlist's compiled core (fairlist._core) is missing from {folder}. {why}"


# The compiled core first, so that a missing one gives a message that says what to do (as
# scikit-learn's "has not been built correctly") instead of an import error from deep inside.
try:
    import_module(f"{__name__}._core")
except ModuleNotFoundError as exc:
    if exc.name != f"{__name__}._core":
        raise
    raise ImportError(_not_built(Path(__file__).resolve().parent)) from None

from ._version import __version__
from .errors import (
    DataError,
    FairlistError,
    InfeasibleError,
    InvalidParameterError,
    LengthPenaltyWarning,
    ModelFileError,
    TimeLimitError,
)
from .interrupts import InterruptSignals, Terminated
from .metrics import Metric, confusion_counts, unfairness
from .rulelist import Rule, RuleList, RuleListFormatError
from .solvers import Limits, Problem, Result, Status, StopReason, solve

# Heavier parts (scikit-learn, OR-Tools, matplotlib) load on first use.
_LAZY = {
    "FairRuleListClassifier": "estimator",
    "Binarizer": "binarize",
    "load_compas": "datasets",
    "load_adult": "datasets",
    "load_dataset": "datasets",
    "verify": "verification",
    "VerifyReport": "verification",
    "cross_validated_front": "pareto",
    "training_front": "pareto",
    "ParetoResult": "pareto",
    "non_dominated": "pareto",
    "plot_pareto": "plotting",
    "plot_rashomon_unfairness": "plotting",
    "plot_antecedent_usage": "plotting",
    "SensitiveColumnWarning": "groups",
    "export_python": "export",
    "export_sql": "export",
    "export_text": "export",
    "make_fair_scorer": "model_selection",
    "select": "model_selection",
    "rashomon_set": "rashomon",
    "RashomonSet": "rashomon",
    "fairest_within": "fairest",
    "FairestResult": "fairest",
}

__all__ = [
    "__version__",
    "FairlistError",
    "InvalidParameterError",
    "DataError",
    "InfeasibleError",
    "ModelFileError",
    "LengthPenaltyWarning",
    "TimeLimitError",
    "InterruptSignals",
    "Terminated",
    "Metric",
    "confusion_counts",
    "unfairness",
    "Rule",
    "RuleList",
    "RuleListFormatError",
    "Limits",
    "Problem",
    "Result",
    "Status",
    "StopReason",
    "solve",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fairlist' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
