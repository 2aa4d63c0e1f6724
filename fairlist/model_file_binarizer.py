"""The schema of a fitted binarizer's document (``fairlist.binarizer``), the part of a model file
that lets a saved model binarize raw rows as at fit time, and of the binarizer's parameters in
the estimator's ``params``.

:func:`check_binarizer` checks the document (its parameters, then column by column the cut
points or categories and the antecedent names they give, then which single antecedents,
negations and pairs make its output, with their supports) and returns it normalized with the
output names (``names_out``) the model's rule list must read. The binarizer's parameter table
(:data:`fairlist.binarize.PARAMETER_CONSTRAINTS`) is the one declaration its parameters are
checked against; a document written before a parameter existed
(:data:`fairlist.binarize.LATER_PARAMETERS`) loads with its default. The checks raise as the
rest of the model file does (:mod:`fairlist.model_file_cursor`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from .model_file_cursor import At, check_distinct, format_and_version, shorten

__all__ = ["check_binarizer", "check_binarizer_params"]


def check_binarizer(at: At) -> dict[str, Any]:
    """A fitted binarizer's document: its parameters and, column by column, the cut points or
    categories and the antecedent names they give; then which single antecedents, negations
    and pairs make its output, and their supports."""
    from .binarize import BINARIZER_FORMAT, BINARIZER_VERSION

    format_and_version(at, BINARIZER_FORMAT, (BINARIZER_VERSION,), "binarizer")
    at.obj(
        [
            "format",
            "version",
            "params",
            "feature_names_in",
            "columns",
            "single_keep",
            "negated",
            "pairs",
            "supports",
            "n_dropped",
        ],
        ["id_columns"],  # (written since the ID-like columns are left out)
    )
    out: dict[str, Any] = {"format": BINARIZER_FORMAT, "version": BINARIZER_VERSION}
    out["params"] = check_binarizer_params(at.child("params"), pairs=True)
    out["feature_names_in"] = names_in = at.child("feature_names_in").column_names()
    columns, singles = [], []
    for c_at in at.child("columns").items("a list of columns"):
        column = _binarizer_column(c_at, names_in, columns)
        columns.append(column)
        singles += column["names"]
    out["columns"] = columns
    r = len(singles)
    keep = out["single_keep"] = _indices(at.child("single_keep"), r)
    negated = out["negated"] = _indices(at.child("negated"), r)
    pairs = []
    for p_at in at.child("pairs").items("a list of pairs"):
        a, b = _indices(p_at, r, length=2)
        if a == b:
            p_at.fail(f"pairs antecedent {a} with itself")
        pairs.append([a, b])
    out["pairs"] = pairs
    names_out = [singles[k] for k in keep] + [f"not {singles[k]}" for k in negated]
    names_out += [f"{singles[a]} && {singles[b]}" for a, b in pairs]
    sup_at = at.child("supports")
    why = "one per output antecedent"
    out["supports"] = [e.number(0, 1) for e in sup_at.items("a list", len(names_out), why)]
    out["n_dropped"] = at.child("n_dropped").integer(0)
    if at.has("id_columns"):
        out["id_columns"] = at.child("id_columns").column_names()
    out["names_out"] = names_out
    return out


def _binarizer_column(c_at: At, names_in: list, columns: list[dict]) -> dict[str, Any]:
    """One column of a fitted binarizer's document: its cut points or categories, checked
    against the antecedent names they give (``columns``: those read before it)."""
    import numpy as np

    from .binarize import MISSING, interval_names

    c_at.obj(["name", "kind", "names", "categories", "cut_points", "integer", "missing"])
    name_at = c_at.child("name")
    name = name_at.value
    if name not in names_in or isinstance(name, bool):
        name_at.fail(f"is {shorten(name)}, not one of the binarizer's 'feature_names_in'")
    if any(c["name"] == name for c in columns):
        name_at.fail(f"is {name!r}, a column described twice")
    kind = c_at.child("kind").choice(("numeric", "categorical"))
    integer, missing = c_at.child("integer").boolean(), c_at.child("missing").boolean()
    cats_at, cuts_at = c_at.child("categories"), c_at.child("cut_points")
    if kind == "numeric":
        if cats_at.items("a list") != []:
            cats_at.fail("is not empty, expected [] for a numeric column")
        cuts = _increasing(cuts_at)
        labels = interval_names(np.asarray(cuts, dtype=float), integer)
        legacy = interval_names(np.asarray(cuts, dtype=float), integer, digits=6)
        categories: list = []
    else:
        if cuts_at.value is not None:
            cuts_at.wrong("null for a categorical column")
        cuts = None
        categories = [_category(e) for e in cats_at.items("a list of categories")]
        check_distinct(cats_at, categories)
        labels = legacy = [str(v) for v in categories]
    expected = [f"{name}:{label}" for label in labels] + ([f"{name}:{MISSING}"] * missing)
    older = [f"{name}:{label}" for label in legacy] + ([f"{name}:{MISSING}"] * missing)
    names_at = c_at.child("names")
    names = names_at.names()
    if names and names != expected and names != older:  # [] is a constant column's: none
        # (older: cut points printed with 6 digits, as fairlist 0.1 did)
        names_at.fail(f"is {shorten(names, 60)}, expected {shorten(expected, 60)}")
    return {
        "name": name,
        "kind": kind,
        "names": names,
        "categories": categories,
        "cut_points": cuts,
        "integer": integer,
        "missing": missing,
    }


def check_binarizer_params(at: At, pairs: bool) -> dict[str, Any]:
    """A binarizer's parameters (``cut_points`` as ``[[column, cuts], ...]`` pairs in a fitted
    binarizer's document, as an object in the estimator's parameters)."""
    from .binarize import LATER_PARAMETERS, PARAMETER_CONSTRAINTS, Binarizer

    names = list(Binarizer().get_params())  # a fitted one's transform reads them: all needed
    older = [n for n in names if n not in LATER_PARAMETERS]  # (but those added since)
    at.obj(older if pairs else [], names)
    params: dict[str, Any] = {}
    for name in at.value:
        p = at.child(name)
        if p.value is None and name in ("sensitive", "categorical", "cut_points"):
            params[name] = None
        elif name == "sensitive":
            one = not isinstance(p.value, (list, tuple))
            params[name] = p.column_name() if one else p.column_names()
        elif name == "categorical":
            params[name] = p.column_names()
        elif name == "cut_points" and pairs:
            params[name] = []
            for e in p.items("a list of [column, cut points] pairs"):
                column, cuts = e.items("a [column, cut points] pair", 2, "a column and its cuts")
                params[name].append([column.column_name(), _increasing(cuts)])
            check_distinct(p, [column for column, _ in params[name]])
        elif name == "cut_points":
            if not isinstance(p.value, Mapping):
                p.wrong("an object (column: cut points)")
            params[name] = {k: _increasing(p.child(k)) for k in p.value}
        else:
            params[name] = p.declared(PARAMETER_CONSTRAINTS[name])
    return params


def _increasing(at: At) -> list[float]:
    """Strictly increasing finite numbers (cut points)."""
    cuts = [float(e.number()) for e in at.items("a list of cut points")]
    for k in range(1, len(cuts)):
        if cuts[k] <= cuts[k - 1]:
            at.fail(f"is {shorten(cuts, 60)}, expected strictly increasing cut points")
    return cuts


def _category(at: At) -> Any:
    """A category: a string, a finite number or a boolean."""
    if isinstance(at.value, (str, bool)):
        return at.value
    if isinstance(at.value, numbers.Real):
        return at.number()
    at.wrong("a category (a string, a number or a boolean)")


def _indices(at: At, size: int, length: int | None = None) -> list[int]:
    """Distinct indices into a list of ``size`` entries."""
    indices = [e.integer(0, size - 1) for e in at.items("a list of indices", length)]
    check_distinct(at, indices)
    return indices
