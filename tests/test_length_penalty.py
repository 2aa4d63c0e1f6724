"""The length penalty deciding the answer: LengthPenaltyWarning (issue 25)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fairlist
from fairlist import FairRuleListClassifier, LengthPenaltyWarning


def data(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 4)).astype(np.uint8)
    y = X[:, 0].copy()
    y[rng.random(n) < 0.15] ^= 1
    return X, y, rng.random(n) < 0.5


def test_the_warning_names_lam_and_suggests_a_smaller_one():
    assert "LengthPenaltyWarning" in fairlist.__all__
    X, y, g = data()
    with pytest.warns(LengthPenaltyWarning, match=r"lam=0\.5 decided .* lam=0\.05"):
        clf = FairRuleListClassifier(lam=0.5, epsilon=0.2).fit(X, y, sensitive_features=g)
    assert len(clf.rule_list_) == 0 and str(clf.status_) == "optimal"


def test_no_warning_when_the_constant_list_is_the_best_anyway_or_lam_is_small():
    X, y, g = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", LengthPenaltyWarning)
        clf = FairRuleListClassifier(lam=0.01, epsilon=0.2).fit(X, y, sensitive_features=g)
        assert len(clf.rule_list_) >= 1
        rng = np.random.default_rng(1)
        noise = rng.integers(0, 2, len(y))  # labels no antecedent predicts
        FairRuleListClassifier(lam=0.5).fit(X, noise, sensitive_features=g)
        FairRuleListClassifier(lam=0.5, max_length=0).fit(X, y, sensitive_features=g)
