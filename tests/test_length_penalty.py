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


# --------------------------------------------------------------------------- lam="auto" (issue 34)
def imbalanced(n: int = 2000, rows: int = 20, hits: int = 18):
    """About 6 % positives; antecedent x0 holds ``rows`` rows, ``hits`` of them positive, and
    the 102 other positives lie elsewhere. With the defaults the rule ``x0 -> 1`` removes 16
    errors (0.008 of n): fewer than lam=0.01 asks, more than lam="auto" (0.0006)."""
    rng = np.random.default_rng(5)
    y = np.zeros(n, np.uint8)
    y[rng.choice(np.arange(30, n), 102, replace=False)] = 1
    y[:hits] = 1
    X = np.zeros((n, 3), np.uint8)
    X[:rows, 0] = 1
    X[:, 1:] = rng.random((n, 2)) < 0.3  # noise
    return X, y, (np.arange(n) % 2).astype(bool)


def test_auto_lam_is_the_old_default_per_error_of_the_constant_list():
    from fairlist.solvers.base import AUTO_LAM_SCALE, DEFAULT_LAM, Problem, auto_lam

    assert DEFAULT_LAM == "auto" and AUTO_LAM_SCALE == 0.01
    assert auto_lam([0, 1, 0, 1]) == pytest.approx(0.005)
    assert auto_lam([0] * 94 + [1] * 6) == pytest.approx(0.0006)
    assert auto_lam([1] * 94 + [0] * 6) == pytest.approx(0.0006)  # the minority, either class
    assert auto_lam([0, 0, 0, 1], sample_weight=[1, 1, 1, 3]) == pytest.approx(0.005)  # weighted
    assert auto_lam([1, 1, 1]) == pytest.approx(0.005)  # one class: priced as a balanced one
    X, y, g = imbalanced()
    assert Problem(X, y, g).lam == pytest.approx(0.01 * 120 / 2000)  # resolved to a number
    assert Problem(X, y, g, lam=0.01).lam == 0.01


def test_the_default_fit_answers_a_fair_list_where_lam_001_answers_the_constant():
    X, y, g = imbalanced()
    with pytest.warns(LengthPenaltyWarning, match=r"lam=0\.01 decided"):
        old = FairRuleListClassifier(lam=0.01, epsilon=0.05).fit(X, y, sensitive_features=g)
    assert len(old.rule_list_) == 0
    clf = FairRuleListClassifier(epsilon=0.05).fit(X, y, sensitive_features=g)
    assert str(clf.status_) == "optimal" and len(clf.rule_list_) == 1
    assert clf.rule_list_.rules[0].antecedent == "x0" and clf.accuracy_ > old.accuracy_
    assert clf.lam_ == pytest.approx(0.0006) and clf.get_params()["lam"] == "auto"
    assert clf.objective_ == pytest.approx(1 - clf.accuracy_ + clf.lam_ * 1)


def test_the_warning_says_what_auto_resolved_to():
    # x0 holds 11 positives of 21 rows: the rule removes 1 error (0.0005 of n); 113 positives
    # make "auto" 0.000565, above that, and the probe's lam / 10 below it
    X, y, g = imbalanced(rows=21, hits=11)
    with pytest.warns(LengthPenaltyWarning, match=r"lam='auto' \(0\.000565: 0\.01 x the minority"):
        clf = FairRuleListClassifier(epsilon=0.05).fit(X, y, sensitive_features=g)
    assert len(clf.rule_list_) == 0 and clf.lam_ == pytest.approx(0.01 * y.mean())


def test_an_auto_lam_model_saves_and_loads_with_the_number_it_used(tmp_path):
    X, y, g = imbalanced()
    clf = FairRuleListClassifier(epsilon=0.05).fit(X, y, sensitive_features=g)
    clf.save(tmp_path / "m.json")
    loaded = FairRuleListClassifier.load(tmp_path / "m.json")
    assert loaded.get_params()["lam"] == "auto" and loaded.lam_ == pytest.approx(clf.lam_)
    doc = clf.to_dict()
    doc["training"]["stats"]["lam"] = 0.5  # the objective no longer agrees with the lam used
    from fairlist.errors import ModelFileError

    with pytest.raises(ModelFileError, match="length penalty"):
        FairRuleListClassifier.from_dict(doc)


def test_the_cli_takes_lam_auto_or_a_number(tmp_path):
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from fairlist.cli import app

    X, y, g = imbalanced()
    data = tmp_path / "d.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(grp=g.astype(int), label=y).to_csv(
        data, index=False
    )
    args = ["fit", str(data), "--target", "label", "--sensitive", "grp", "--epsilon", "0.05"]
    runner = CliRunner()
    for extra, rules, lam in (
        ([], 1, 0.0006),
        (["--lam", "auto"], 1, 0.0006),
        (["--lam", "0.01"], 0, 0.01),
    ):
        result = runner.invoke(app, [*args, *extra, "--json"])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["length"] == rules and doc["lam"] == pytest.approx(lam), extra
    result = runner.invoke(app, args)
    assert "(lam auto = 0.0006)" in result.stdout  # the number "auto" resolved to, printed
    result = runner.invoke(app, [*args, "--lam", "many"])
    assert result.exit_code == 2 and "neither a number nor 'auto'" in result.output
