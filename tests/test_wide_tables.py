"""Wide and large raw tables: the antecedent budget, ID-like columns, the memory of mining, and
the exactness of the search over the antecedents the default binarizer keeps (brute force)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from reference import assert_certifies, reference_solve

from fairlist import FairRuleListClassifier
from fairlist.binarize import (
    DEFAULT_MAX_ANTECEDENTS,
    AntecedentCapWarning,
    Binarizer,
    IdLikeColumnWarning,
)
from fairlist.binarize.columns import id_like
from fairlist.solvers.base import Problem
from fairlist.synthetic import make_wide_table


# --------------------------------------------------------------------------- ID-like columns
@pytest.mark.parametrize("n", [300, 5_000])
def test_the_id_like_columns_of_the_synthetic_table_are_found_and_no_other(n):
    t = make_wide_table(n, seed=1)
    found = [c for c in t.X.columns if id_like(t.X[c])]
    assert found == list(t.id_like) == ["row_id", "name", "timestamp"]
    with pytest.warns(IdLikeColumnWarning, match="'row_id'.*'name'.*'timestamp'"):
        b = Binarizer(handle_missing="category").fit(t.X, t.y)
    assert b.id_columns_ == ["row_id", "name", "timestamp"]
    assert not any(name.split(":")[0] in t.id_like for name in b.single_names_)


def test_no_column_of_compas_or_adult_is_taken_for_an_identifier(shared_data):
    from fairlist.datasets import adult_table, compas_table, read_adult

    compas = compas_table(pd.read_csv(shared_data / "compas" / "compas-scores-two-years.csv"))
    adult = adult_table(read_adult([shared_data / "adult" / "adult.data"]))
    for table in (compas, adult):
        assert [c for c in table.columns if id_like(table[c])] == []
    raw = pd.read_csv(shared_data / "compas" / "compas-scores-two-years.csv")
    found = {c for c in raw.columns if id_like(raw[c])}  # the published file's ids and names
    assert {"id", "name", "c_case_number", "c_jail_in"} <= found
    assert not found & {"age", "priors_count", "sex", "race", "c_charge_degree"}


def test_columns_named_as_categorical_are_used_even_if_id_like():
    t = make_wide_table(400, seed=2, n_numeric=3, n_categorical=3)
    with pytest.warns(IdLikeColumnWarning) as record:
        b = Binarizer(handle_missing="category", categorical=["row_id"]).fit(t.X, t.y)
    assert "row_id" not in b.id_columns_ and "'row_id'" not in str(record[0].message)


# --------------------------------------------------------------------------- the budget
def test_the_default_budget_keeps_300_of_the_synthetic_tables_antecedents_and_says_so():
    t = make_wide_table(3_000, seed=0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        b = Binarizer(handle_missing="category").fit(t.X, t.y)
    caps = [str(w.message) for w in record if w.category is AntecedentCapWarning]
    assert b.n_antecedents_kept_ == DEFAULT_MAX_ANTECEDENTS == 300
    assert b.n_antecedents_made_ > 1_000
    assert caps and f"kept 300 of the {b.n_antecedents_made_} antecedents made" in caps[0]
    # the columns the label is made of are among the kept antecedents
    used = {name.split(":")[0] for name in b.get_feature_names_out()}
    assert {"education", "marital", "capital_gains"} <= {u.removeprefix("not ") for u in used}
    doc = json.loads(json.dumps(b.to_dict()))
    back = Binarizer.from_dict(doc)
    assert back.n_antecedents_made_ == b.n_antecedents_made_ and back.id_columns_ == b.id_columns_
    np.testing.assert_array_equal(back.transform(t.X.head(50)), b.transform(t.X.head(50)))


def test_a_model_file_stores_what_was_made_and_kept(tmp_path):
    t = make_wide_table(2_000, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = FairRuleListClassifier(max_length=2, lam=0.005, handle_missing="category").fit(
            t.X, t.y, sensitive_features=t.sensitive.to_numpy()
        )
    clf.save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["binarizer"]["n_dropped"] == clf.binarizer_.n_dropped_ > 0
    assert doc["binarizer"]["id_columns"] == ["row_id", "name", "timestamp"]
    loaded = FairRuleListClassifier.load(tmp_path / "m.json")
    assert loaded.binarizer_.n_antecedents_made_ == clf.binarizer_.n_antecedents_made_
    # a model file written before these fields and parameters existed still loads
    for key in ("id_columns",):
        del doc["binarizer"][key]
    for key in ("max_pair_memory_mb", "keep_id_columns"):
        del doc["binarizer"]["params"][key]
    for key in ("handle_unknown", "keep_id_columns"):
        del doc["params"][key]
    old = FairRuleListClassifier.from_dict(doc)
    np.testing.assert_array_equal(old.predict(t.X.head(100)), clf.predict(t.X.head(100)))


# --------------------------------------------------------------------------- resource requests
def test_more_quantile_bins_than_values_cut_at_each_value_without_allocating_the_bins():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.integers(0, 5, 200)})
    b = Binarizer(numeric="quantile", n_bins=10**6, conjunctions=False, max_antecedents=None)
    b.fit(X)
    assert b.cut_points_["a"].size == 199 and list(b.cut_points_["b"]) == [1, 2, 3, 4]


_MINING = """
import json, resource, sys, warnings
import numpy as np
from fairlist.binarize import Binarizer
from fairlist.synthetic import make_wide_table

warnings.simplefilter("ignore")
t = make_wide_table(int(sys.argv[1]), seed=0, n_numeric=20, n_categorical=25)
X = t.X.assign(case_number=np.char.add("case-", np.arange(len(t.X)).astype(str)).astype(object),
               account=np.arange(len(t.X)) * 7 + 3)
out = {"columns": X.shape[1]}
for keep in (False, True):
    b = Binarizer(handle_missing="category", keep_id_columns=keep).fit(X, t.y)
    out[str(keep)] = [len(b.id_columns_), b.n_antecedents_made_, b.n_antecedents_kept_]
out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


@pytest.mark.slow
def test_mining_a_50_column_table_with_5_id_like_columns_stays_under_2_gb():
    result = subprocess.run(
        [sys.executable, "-c", _MINING, "50000"], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["columns"] == 50
    assert out["False"][0] == 5 and out["True"][0] == 0
    assert out["True"][1] > 100_000  # one antecedent (and its negation) per distinct id
    assert out["False"][2] == out["True"][2] == 300
    assert out["maxrss_mb"] < 2048, out


# --------------------------------------------------------------------------- exactness
def _raw(seed: int, n: int = 90) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """A small raw table (numbers, categories, missing values) with a label and two groups."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "score": rng.normal(0, 1, n).round(2),
            "job": rng.choice(["a", "b", "c", "d"], n),
            "city": rng.choice(["x", "y", "z"], n).astype(object),
        }
    )
    X.loc[rng.random(n) < 0.1, "city"] = None
    s = rng.integers(0, 2, n)
    y = ((X["age"] > 40) ^ (X["job"] == "a") ^ (rng.random(n) < 0.2)).to_numpy().astype(int)
    return X, y, s


@pytest.mark.parametrize("engine", ["bnb", "cpsat"])
@pytest.mark.parametrize("seed", range(4))
def test_a_search_over_the_kept_antecedents_equals_brute_force(seed, engine):
    if engine == "cpsat":
        pytest.importorskip("ortools")
    X, y, s = _raw(seed)
    budget = 14 if seed % 2 else DEFAULT_MAX_ANTECEDENTS  # a budget that cuts, and the default
    binarizer = Binarizer(numeric="quantile", handle_missing="category", max_antecedents=budget)
    max_length = 2 if budget < 50 else 1
    params = dict(metric="SP", epsilon=0.15, lam=0.01, max_length=max_length)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = FairRuleListClassifier(
            **params, engine=engine, binarizer=binarizer, time_limit=None, max_nodes=None
        ).fit(X, y, sensitive_features=s)
    assert clf.binarizer_.n_antecedents_kept_ <= budget
    if budget < 50:
        assert clf.binarizer_.n_dropped_ > 0  # the budget did cut
    A = clf.binarizer_.transform(X)
    problem = Problem.from_data(A, y, s, **params)
    reference = reference_solve(problem, max_length)
    assert_certifies(problem, reference, clf.result_, (seed, engine))
