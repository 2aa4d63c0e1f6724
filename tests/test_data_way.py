"""The data's way (docs/design.md §5.1): a raw table is binarized into one antecedent matrix,
and that matrix, not a copy, is the problem the engine packs and searches."""

from __future__ import annotations

import warnings

import numpy as np

import fairlist.estimator as estimator_module
import fairlist.solvers.bnb as bnb
from fairlist import FairRuleListClassifier
from fairlist.synthetic import make_wide_table


def test_the_binarized_matrix_is_the_problems_x_and_what_the_engine_packs(monkeypatch):
    t = make_wide_table(600, seed=1, n_numeric=3, n_categorical=3, n_id_like=0)
    X = t.X.assign(sex=t.sensitive)
    seen: dict = {}
    to_antecedents, pack_matrix = estimator_module.to_antecedents, bnb.pack_matrix

    def binarized(*args, **kwargs):
        fitted, matrix, names = to_antecedents(*args, **kwargs)
        seen["matrix"] = matrix
        return fitted, matrix, names

    def packed(matrix):
        seen["packed"] = matrix
        return pack_matrix(matrix)

    monkeypatch.setattr(estimator_module, "to_antecedents", binarized)
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
