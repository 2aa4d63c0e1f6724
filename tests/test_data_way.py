"""The data's way (docs/design.md §5.1): a raw table is binarized into one antecedent matrix,
and that matrix, not a copy, is the problem the engine packs and searches; the labels are
scanned and encoded once, the matrix checked once."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fairlist.prepare as prepare_module
import fairlist.solvers.bnb as bnb
from fairlist import FairRuleListClassifier
from fairlist.synthetic import make_wide_table


def test_the_binarized_matrix_is_the_problems_x_and_what_the_engine_packs(monkeypatch):
    t = make_wide_table(600, seed=1, n_numeric=3, n_categorical=3, n_id_like=0)
    X = t.X.assign(sex=t.sensitive)
    seen: dict = {}
    to_antecedents, pack_matrix = prepare_module.to_antecedents, bnb.pack_matrix

    def binarized(*args, **kwargs):
        fitted, matrix, names = to_antecedents(*args, **kwargs)
        seen["matrix"] = matrix
        return fitted, matrix, names

    def packed(matrix):
        seen["packed"] = matrix
        return pack_matrix(matrix)

    monkeypatch.setattr(prepare_module, "to_antecedents", binarized)
    monkeypatch.setattr(bnb, "pack_matrix", packed)
    clf = FairRuleListClassifier(max_length=1, lam=0.01, cuts="quantile")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        problem = clf.prepare(X, t.y, "sex")
        assert np.shares_memory(problem.X, seen["matrix"])  # the binarizer's output, no copy
        clf.fit(X, t.y, "sex")
    assert problem.X.dtype == np.uint8 and problem.X.flags["C_CONTIGUOUS"]
    assert problem.X.shape == (600, clf.binarizer_.n_antecedents_kept_)
    # the fit's own matrix (seen last) is the one the engine packed: no copy in between
    assert np.shares_memory(seen["packed"], seen["matrix"])


def _counting(monkeypatch, y_values):
    """Counts, while fitting, the scans of the labels (``check_labels``), their encodings
    (``numpy.unique`` of an array holding only the labels' values) and the 0/1 checks of the
    problem's matrix (``as_binary`` of a 2-d array in the problem's module)."""
    import fairlist._validation as validation
    import fairlist.prepare as route
    import fairlist.solvers.base as base

    seen = {"scans": 0, "encodings": 0, "matrix checks": 0}
    labels = set(y_values)
    unique, check_labels, as_binary = np.unique, validation.check_labels, base.as_binary

    def counted_unique(values, *args, **kwargs):
        arr = np.asarray(values)
        if arr.ndim == 1 and arr.size > 2 and set(arr.tolist()) <= labels:
            seen["encodings"] += 1
        return unique(values, *args, **kwargs)

    def counted_check(*args, **kwargs):
        seen["scans"] += 1
        return check_labels(*args, **kwargs)

    def counted_binary(name, values, ndim, **kwargs):
        seen["matrix checks"] += ndim == 2
        return as_binary(name, values, ndim, **kwargs)

    monkeypatch.setattr(np, "unique", counted_unique)
    monkeypatch.setattr(validation, "check_labels", counted_check)
    monkeypatch.setattr(route, "check_labels", counted_check)
    monkeypatch.setattr(base, "as_binary", counted_binary)
    return seen


@pytest.mark.parametrize("raw", [True, False])
def test_the_labels_are_checked_and_encoded_once_and_the_matrix_checked_once(monkeypatch, raw):
    t = make_wide_table(400, seed=2, n_numeric=3, n_categorical=3, n_id_like=0)
    y = pd.Series(np.where(np.asarray(t.y) == 1, "yes", "no"), dtype=object, name="label")
    X = t.X if raw else pd.DataFrame({f"a{j}": (t.X.index % (j + 2) == 0) * 1 for j in range(4)})
    seen = _counting(monkeypatch, {"no", "yes"})
    clf = FairRuleListClassifier(max_length=1, lam=0.01, cuts="quantile")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        problem = clf.prepare(X, y, t.sensitive)
    assert seen == {"scans": 1, "encodings": 1, "matrix checks": 1}
    assert (clf.binarizer_ is not None) == raw
    assert problem.classes == ("no", "yes") and clf.classes_.tolist() == ["no", "yes"]
    assert problem.y.tolist() == (y == "yes").astype(int).tolist()


@pytest.mark.parametrize(
    "y",
    [
        [0, 1, 1, 0],
        [True, False, True, True],
        ["no", "yes", "yes", "no"],
        pd.Series(["b", "a", "a", "b"], dtype=object, name="label"),
        pd.Series(["b", "a", "a", "b"], dtype="category"),
        np.array([0.0, 1.0, 1.0, 0.0]),
        np.array([2, 7, 7, 2], dtype=np.int8),
    ],
)
def test_the_labels_one_encoding_is_the_encoding(y):
    from fairlist._validation import check_labels, encode_labels, encode_target

    check_labels(y, n_rows=4)
    target = encode_target(y, 4, checked=True)
    classes, codes = encode_labels(y, n_rows=4)
    assert target.classes.tolist() == classes.tolist() and target.codes.tolist() == codes.tolist()
    assert target.codes.dtype == np.uint8


@pytest.mark.parametrize(
    ("y", "words"),
    [
        (["a", "b", "c", "a"], "The type of the target is multiclass: y must be binary; it has 3"),
        ([0.5, 1.5, 0.5, 1.5], "Unknown label type: continuous"),
        ([1, 1, 1, 1], "y has 1 class (1) only"),
    ],
)
def test_the_labels_errors_keep_scikit_learns_words(y, words):
    from fairlist._validation import encode_target

    with pytest.raises(ValueError, match=re.escape(words)):
        encode_target(y, 4, checked=True)
