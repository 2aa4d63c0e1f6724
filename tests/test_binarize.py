"""Tests of fairlist.binarize: cut points, one-hot, negations, conjunctions, bad input."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from fairlist.binarize import (
    AntecedentCapWarning,
    Binarizer,
    ConstantColumnWarning,
    UnseenCategoryWarning,
    mdlp_cut_points,
    pair_counts,
    pair_memory,
    quantile_cut_points,
)

# ------------------------------------------------------------------ a plain MDLP reference


def _entropy(labels: list[int]) -> float:
    n = len(labels)
    if n == 0:
        return 0.0
    out = 0.0
    for c in set(labels):
        p = labels.count(c) / n
        out -= p * math.log2(p)
    return out


def _reference_mdlp(x: list[float], y: list[int]) -> list[float]:
    """Fayyad & Irani's recursion written directly from the paper, one candidate at a time."""
    pairs = sorted(zip(x, y, strict=True))
    cuts: list[float] = []

    def split(part: list[tuple[float, int]]) -> None:
        labels = [lab for _, lab in part]
        n = len(part)
        values = sorted({v for v, _ in part})
        best = None
        for a, b in itertools.pairwise(values):
            left = [lab for v, lab in part if v <= a]
            right = [lab for v, lab in part if v > a]
            e = (len(left) * _entropy(left) + len(right) * _entropy(right)) / n
            if best is None or e < best[0] - 1e-12:
                best = (e, (a + b) / 2, left, right)
        if best is None:
            return
        e, cut, left, right = best
        ent = _entropy(labels)
        k, k1, k2 = len(set(labels)), len(set(left)), len(set(right))
        delta = math.log2(3**k - 2) - (k * ent - k1 * _entropy(left) - k2 * _entropy(right))
        if ent - e > (math.log2(n - 1) + delta) / n:
            cuts.append(cut)
            split([p for p in part if p[0] < cut])
            split([p for p in part if p[0] > cut])

    split(pairs)
    return sorted(cuts)


@pytest.mark.parametrize("seed", range(8))
def test_mdlp_matches_a_direct_transcription_of_fayyad_irani(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 120))
    x = rng.integers(0, 25, n).astype(float)
    # label depends on x through a noisy threshold so that some cuts are accepted
    y = ((x + rng.normal(0, 4, n)) > 12).astype(int)
    ours = mdlp_cut_points(x, y)
    ref = _reference_mdlp(x.tolist(), y.tolist())
    np.testing.assert_allclose(ours, ref)


def test_mdlp_cuts_between_two_separated_classes():
    x = np.array([1.0, 2, 3, 4, 10, 11, 12, 13] * 4)
    y = (x > 5).astype(int)
    np.testing.assert_allclose(mdlp_cut_points(x, y), [(4 + 10) / 2])


def test_mdlp_rejects_cuts_on_labels_unrelated_to_x():
    x = np.arange(40.0)
    y = np.arange(40) % 2  # alternating: no cut pays for its description length
    assert mdlp_cut_points(x, y).size == 0


def test_quantile_cut_points_make_bins_of_similar_size_and_never_an_empty_first_bin():
    x = np.arange(100.0)
    cuts = quantile_cut_points(x, 4)
    sizes = np.bincount(np.searchsorted(cuts, x, side="right"))
    assert sizes.size == 4 and sizes.min() >= 24
    skewed = np.array([0.0] * 90 + list(range(1, 11)))
    assert np.all(quantile_cut_points(skewed, 4) > 0)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000])
def test_bit_packed_pair_counts_equal_the_integer_matrix_product(n):
    m = np.random.default_rng(n).random((n, 7)) < 0.3
    expected = m.astype(np.int64).T @ m.astype(np.int64)
    np.testing.assert_array_equal(pair_counts(m), expected)


# ------------------------------------------------------------------ column kinds


def _frame(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "color": pd.Categorical(rng.choice(["red", "blue", "green"], n)),
            "city": rng.choice(["Paris", "Lyon"], n).astype(object),
            "flag": rng.random(n) < 0.4,
            "count": rng.integers(0, 10, n),
            "score": rng.normal(0, 1, n),
            "group": rng.choice(["A", "B"], n),
        }
    )


def _single_columns(b: Binarizer, out: np.ndarray) -> dict[str, np.ndarray]:
    names = list(b.get_feature_names_out())
    out = np.asarray(out)
    return {name: out[:, names.index(name)].astype(bool) for name in b.single_names_}


def test_every_column_kind_becomes_the_expected_single_antecedents():
    df = _frame()
    b = Binarizer(sensitive="group", numeric="quantile", negations=False, conjunctions=False)
    out = b.fit_transform(df)
    singles = _single_columns(b, out)
    for value in ("red", "blue", "green"):
        np.testing.assert_array_equal(singles[f"color:{value}"], df["color"] == value)
    for value in ("Paris", "Lyon"):
        np.testing.assert_array_equal(singles[f"city:{value}"], df["city"] == value)
    np.testing.assert_array_equal(singles["flag:True"], df["flag"])
    np.testing.assert_array_equal(singles["flag:False"], ~df["flag"])
    for col in ("count", "score"):
        cuts = b.cut_points_[col]
        bins = np.searchsorted(cuts, df[col].to_numpy(), side="right")
        block = np.stack([singles[n] for n in b.single_names_ if n.startswith(col + ":")], 1)
        np.testing.assert_array_equal(block.argmax(axis=1), bins)
        np.testing.assert_array_equal(block.sum(axis=1), 1)  # one interval per row
    assert isinstance(out, pd.DataFrame) and list(out.columns) == list(b.get_feature_names_out())
    assert out.index.equals(df.index) and (out.dtypes == np.uint8).all()


def test_float_column_with_nan_gets_its_own_antecedent_under_handle_missing_category():
    df = _frame()
    df.loc[[3, 7, 11], "score"] = np.nan
    b = Binarizer(sensitive="group", numeric="quantile", handle_missing="category")
    singles = _single_columns(b, b.fit_transform(df))
    np.testing.assert_array_equal(singles["score:missing"], df["score"].isna())
    others = [n for n in b.single_names_ if n.startswith("score:") and n != "score:missing"]
    assert not np.any(np.stack([singles[n] for n in others], 1)[[3, 7, 11]])


def test_missing_values_raise_an_error_naming_the_column_and_the_row_count_by_default():
    df = _frame()
    df.loc[[1, 2], "city"] = None
    with pytest.raises(ValueError, match=r"column 'city' has 2 missing values"):
        Binarizer(sensitive="group", numeric="quantile").fit(df)


def test_integer_intervals_are_named_inclusively_and_a_boundary_value_opens_the_next_interval():
    df = pd.DataFrame({"age": [18, 20, 21, 22, 23, 25, 26, 45, 46, 70], "s": list("ABABABABAB")})
    b = Binarizer(sensitive="s", cut_points={"age": [21, 23, 26, 46]}, negations=False)
    out = b.set_params(conjunctions=False).fit_transform(df)
    assert list(b.get_feature_names_out()) == [
        "age:<21",
        "age:21-22",
        "age:23-25",
        "age:26-45",
        "age:>=46",
    ]
    np.testing.assert_array_equal(out.to_numpy().argmax(axis=1), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])


def test_single_value_integer_interval_and_float_and_negative_interval_names():
    df = pd.DataFrame({"p": [0, 1, 2, 3, 5], "t": [-2.5, -1.0, 0.5, 1.5, 3.0], "s": list("ABABA")})
    b = Binarizer(
        sensitive="s", cut_points={"p": [1, 2, 4], "t": [-1.5, 0.25, 2]}, conjunctions=False
    )
    b.set_params(negations=False).fit(df)
    assert b.single_names_ == [
        "p:<1",
        "p:1",
        "p:2-3",
        "p:>=4",
        "t:<-1.5",
        "t:-1.5..0.25",
        "t:0.25-2",
        "t:>=2",
    ]


def test_numpy_input_gets_scikit_learn_column_names():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    b = Binarizer(numeric="quantile", n_bins=2, conjunctions=False, negations=False).fit(X)
    assert [n.split(":")[0] for n in b.single_names_] == ["x0", "x0", "x1", "x1"]
    out = b.transform(X)  # an array in, an array out
    assert isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.flags.c_contiguous


# ------------------------------------------------------------------ negations and conjunctions


def test_negations_are_complements_and_conjunctions_are_exactly_the_frequent_pairs():
    df = _frame(n=200, seed=3)
    sigma = 0.12
    b = Binarizer(sensitive="group", numeric="quantile", min_support=sigma)
    out = b.fit_transform(df).to_numpy().astype(bool)
    names = list(b.get_feature_names_out())
    singles = _single_columns(b, out)
    column = {n: n.split(":")[0] for n in b.single_names_}
    for s in b.single_names_:
        np.testing.assert_array_equal(out[:, names.index(f"not {s}")], ~singles[s])
    expected = set()
    for a, c in itertools.combinations(b.single_names_, 2):
        both = singles[a] & singles[c]
        if column[a] != column[c] and both.mean() >= sigma:
            expected.add(f"{a} && {c}")
    mined = {n for n in names if " && " in n}
    assert mined == expected and mined
    for name in mined:
        a, c = name.split(" && ")
        np.testing.assert_array_equal(out[:, names.index(name)], singles[a] & singles[c])
    np.testing.assert_allclose(b.supports_, out.mean(axis=0))


def test_support_threshold_is_inclusive():
    # x:a && z:c covers exactly 3 of 10 rows: kept at min_support 0.3, dropped just above it
    df = pd.DataFrame({"x": list("aaabbbbbbb"), "z": list("cccddddddc"), "s": list("ABABABABAB")})
    names = Binarizer(sensitive="s", min_support=0.3).fit(df).get_feature_names_out()
    assert "x:a && z:c" in names
    names = Binarizer(sensitive="s", min_support=0.31).fit(df).get_feature_names_out()
    assert "x:a && z:c" not in names


def _gain(bits: np.ndarray, y: np.ndarray) -> float:
    """Mutual information (bits) of a 0/1 column and a 0/1 label, written out plainly."""
    n = len(y)
    out = 0.0
    for a in (0, 1):
        for c in (0, 1):
            joint = np.sum((bits == a) & (y == c)) / n
            if joint > 0:
                out += joint * math.log2(joint / (np.mean(bits == a) * np.mean(y == c)))
    return out


def _reference_budget(df: pd.DataFrame, y: np.ndarray, budget: int, **params) -> list[str]:
    """The kept antecedents under ``budget``, from the uncapped binarizer's columns: singles
    ranked by information gain; conjunctions of the ``budget`` best singles only; every
    candidate ranked (ties: singles, negations, conjunctions, in output order); identical and
    constant columns skipped."""
    full = Binarizer(max_antecedents=None, **params).fit(df, y)
    out = np.asarray(full.transform(df)).astype(bool)
    names = list(full.get_feature_names_out())
    column = {n: out[:, k] for k, n in enumerate(names)}
    singles = list(full.single_names_)
    gain = {n: _gain(column[n], y) for n in names}
    ranked = sorted(range(len(singles)), key=lambda k: (-gain[singles[k]], k))
    pool = {singles[k] for k in ranked[:budget]}
    candidates = [(n, 0) for n in singles] + [(f"not {n}", 1) for n in singles]
    candidates += [
        (n, 2) for n in names if " && " in n and all(part in pool for part in n.split(" && "))
    ]
    order = sorted(range(len(candidates)), key=lambda k: (-gain[candidates[k][0]], k))
    kept, seen = [], set()
    for k in order:
        bits = column[candidates[k][0]]
        key = bits.tobytes()
        if key in seen or not bits.any() or bits.all():
            continue
        seen.add(key)
        kept.append(candidates[k][0])
        if len(kept) == budget:
            break
    return kept


@pytest.mark.parametrize("seed", [4, 5])
def test_max_antecedents_keeps_the_most_informative_about_the_label(seed):
    df = _frame(n=300, seed=seed)
    rng = np.random.default_rng(seed)
    y = ((df["count"] > 6) ^ (rng.random(len(df)) < 0.15)).to_numpy().astype(int)
    params = dict(sensitive="group", numeric="quantile", min_support=0.05)
    full = Binarizer(max_antecedents=None, **params).fit(df, y)
    budget = 12
    with pytest.warns(AntecedentCapWarning, match=r"kept 12 of the \d+ antecedents made"):
        capped = Binarizer(max_antecedents=budget, **params).fit(df, y)
    kept = list(capped.get_feature_names_out())
    assert capped.n_antecedents_kept_ == budget == len(kept)
    assert capped.n_dropped_ == capped.n_antecedents_made_ - budget
    assert capped.n_antecedents_made_ <= len(full.get_feature_names_out())
    reference = _reference_budget(df, y, budget, **params)
    # the same set (ties of equal gain may be ordered apart by rounding: compare gains there)
    out = np.asarray(full.transform(df)).astype(bool)
    names = list(full.get_feature_names_out())
    gain = lambda n: round(_gain(out[:, names.index(n)], y), 9)  # noqa: E731
    assert sorted(map(gain, kept)) == sorted(map(gain, reference))
    assert {n for n in kept if gain(n) > gain(reference[-1])} == {
        n for n in reference if gain(n) > gain(reference[-1])
    }
    # the output keeps the order singles, negations, conjunctions, and its supports
    np.testing.assert_array_equal(capped.transform(df), full.transform(df)[kept].to_numpy())
    np.testing.assert_allclose(capped.supports_, full.transform(df)[kept].mean().to_numpy())


def test_a_budget_counts_identical_columns_once_and_says_what_it_made():
    df = _frame(n=200, seed=1)
    y = (df["city"] == "Paris").to_numpy().astype(int)
    with pytest.warns(AntecedentCapWarning, match="identical ones once"):
        b = Binarizer(sensitive="group", numeric="quantile", max_antecedents=5).fit(df, y)
    out = np.asarray(b.transform(df))
    assert len({out[:, k].tobytes() for k in range(out.shape[1])}) == out.shape[1] == 5
    assert b.get_feature_names_out()[0] == "city:Lyon"  # the label itself: the most informative
    assert "not city:Paris" not in b.get_feature_names_out()  # = city:Lyon


def test_no_budget_and_a_budget_not_reached_keep_everything_as_before():
    df = _frame(n=200, seed=2)
    y = (df["count"] > 5).to_numpy().astype(int)
    full = Binarizer(sensitive="group", numeric="quantile", max_antecedents=None).fit(df, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roomy = Binarizer(sensitive="group", numeric="quantile", max_antecedents=10**6)
        roomy.fit(df, y)
    np.testing.assert_array_equal(full.get_feature_names_out(), roomy.get_feature_names_out())
    assert full.n_dropped_ == 0 and full.n_antecedents_made_ == full.n_antecedents_kept_


def test_a_budget_without_labels_keeps_the_most_balanced_splits():
    df = _frame(n=200, seed=3)
    with pytest.warns(AntecedentCapWarning, match="by balance"):
        b = Binarizer(sensitive="group", numeric="quantile", max_antecedents=4).fit(df)
    kept = np.asarray(b.transform(df)).astype(bool)
    worst_kept = np.abs(kept.mean(axis=0) - 0.5).max()
    full = Binarizer(sensitive="group", numeric="quantile", max_antecedents=None).fit(df)
    every = np.asarray(full.transform(df)).astype(bool)
    names = full.get_feature_names_out()
    known = {kept[:, k].tobytes() for k in range(kept.shape[1])}
    for k in range(every.shape[1]):  # a single or negation left out, not a copy of a kept one
        if " && " not in names[k] and every[:, k].tobytes() not in known:
            assert abs(every[:, k].mean() - 0.5) >= worst_kept - 1e-12, names[k]


def test_pair_memory_cap_mines_conjunctions_among_the_best_singles_with_the_estimate():
    df = _frame(n=300, seed=4)
    y = (df["count"] > 5).to_numpy().astype(int)
    with pytest.warns(AntecedentCapWarning, match=r"would take about [\d,.]+ MiB"):
        b = Binarizer(
            sensitive="group", numeric="quantile", max_antecedents=None, max_pair_memory_mb=0.006
        ).fit(df, y)
    pairs = [n for n in b.get_feature_names_out() if " && " in n]
    full = Binarizer(sensitive="group", numeric="quantile", max_antecedents=None).fit(df, y)
    assert 0 < len(pairs) < sum(" && " in n for n in full.get_feature_names_out())
    assert set(pairs) <= set(full.get_feature_names_out())


def test_pair_memory_estimate_bounds_what_pairing_allocates():
    import tracemalloc

    rng = np.random.default_rng(0)
    matrix = rng.random((20_000, 150)) < 0.3
    tracemalloc.start()
    pair_counts(matrix)
    pair_counts(matrix[:1000])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= pair_memory(20_000, 150)


# ------------------------------------------------------------------ the sensitive column


def test_the_sensitive_column_is_never_an_antecedent_and_is_not_needed_at_transform():
    df = _frame()
    b = Binarizer(sensitive="group", numeric="quantile").fit(df)
    assert not any("group" in name for name in b.get_feature_names_out())
    np.testing.assert_array_equal(b.transform(df.drop(columns="group")), b.transform(df))


def test_missing_sensitive_column_is_an_error():
    with pytest.raises(ValueError, match="sensitive column 'race' is not in X"):
        Binarizer(sensitive="race", numeric="quantile").fit(_frame())


def test_asking_for_antecedents_of_the_sensitive_column_is_refused():
    with pytest.raises(ValueError, match="'group' is the sensitive column"):
        Binarizer(sensitive="group", numeric="quantile", categorical=["group"]).fit(_frame())


def test_categorical_missing_values_become_their_own_antecedent_under_category():
    df = _frame()
    df["color"] = df["color"].astype(object)
    df.loc[[0, 5], "color"] = None
    b = Binarizer(sensitive="group", numeric="quantile", handle_missing="category").fit(df)
    singles = _single_columns(b, b.transform(df))
    np.testing.assert_array_equal(singles["color:missing"], df["color"].isna())
    assert not singles["color:red"][[0, 5]].any()


def test_sensitive_column_with_one_group_is_an_error():
    df = _frame().assign(group="A")
    with pytest.raises(ValueError, match="'group' has 1 group"):
        Binarizer(sensitive="group", numeric="quantile").fit(df)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("df", [pd.DataFrame(), pd.DataFrame({"a": pd.Series([], dtype=float)})])
def test_empty_frame_is_an_error(df):
    with pytest.raises(ValueError, match="no (rows|columns)"):
        Binarizer(numeric="quantile").fit(df)


def test_constant_column_warns_and_yields_no_antecedent():
    df = _frame().assign(const=7)
    with pytest.warns(ConstantColumnWarning, match="'const'"):
        b = Binarizer(sensitive="group", numeric="quantile").fit(df)
    assert not any(n.startswith("const:") for n in b.get_feature_names_out())


def test_numeric_column_without_a_cut_point_warns_and_yields_no_antecedent():
    df = pd.DataFrame({"noise": np.arange(40.0), "c": ["u", "v"] * 20})
    with pytest.warns(ConstantColumnWarning, match="'noise' has no cut point"):
        b = Binarizer().fit(df, np.arange(40) % 2)
    assert b.single_names_ == ["c:u", "c:v"]


def test_only_constant_columns_is_one_error_naming_each_column(recwarn):
    df = pd.DataFrame({"a": [1, 1, 1], "b": ["x", "x", "x"]})
    with pytest.raises(ValueError, match="no antecedent") as info:
        Binarizer(numeric="quantile").fit(df)
    assert "column 'a' takes a single value, column 'b' takes a single value" in str(info.value)
    assert not [w for w in recwarn if issubclass(w.category, ConstantColumnWarning)]


def test_all_nan_column_is_an_error_by_default_and_constant_as_a_category():
    df = _frame().assign(empty=np.nan)
    with pytest.raises(ValueError, match=f"column 'empty' has {len(df)} missing values"):
        Binarizer(sensitive="group", numeric="quantile").fit(df)
    with pytest.warns(ConstantColumnWarning, match="'empty'"):
        b = Binarizer(sensitive="group", numeric="quantile", handle_missing="category").fit(df)
    assert not any(n.startswith("empty:") for n in b.get_feature_names_out())


def test_label_that_is_not_binary_is_an_error():
    df = _frame()
    y = np.arange(len(df)) % 3
    with pytest.raises(ValueError, match="y must be binary; it has 3 distinct values"):
        Binarizer(sensitive="group").fit(df, y)


def test_label_of_the_wrong_length_is_an_error_giving_both_lengths():
    df = _frame(n=60)
    with pytest.raises(ValueError, match="y has 59 rows, X has 60"):
        Binarizer(sensitive="group").fit(df, np.zeros(59))


def test_mdlp_without_a_label_is_an_error_naming_the_column():
    with pytest.raises(ValueError, match="needs y to cut column 'count'"):
        Binarizer(sensitive="group").fit(_frame())


def test_duplicate_column_names_are_an_error():
    df = pd.DataFrame([[1, "a", 2], [2, "b", 3]], columns=["x", "y", "x"])
    with pytest.raises(ValueError, match=r"duplicate column names: \['x'\]"):
        Binarizer(numeric="quantile").fit(df)


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("numeric", "kmeans"),
        ("n_bins", 1),
        ("n_bins", 2.5),
        ("min_support", 1.5),
        ("min_support", -0.1),
        ("max_antecedents", 0),
        ("handle_missing", "drop"),
        ("negations", "yes"),
        ("cut_points", {"count": [3, 1]}),
    ],
)
def test_bad_parameters_are_rejected_in_fit_naming_the_parameter(param, value):
    b = Binarizer(sensitive="group", numeric="quantile").set_params(**{param: value})  # no error
    with pytest.raises(ValueError, match=param):
        b.fit(_frame())


# ------------------------------------------------------------------ transform-time surprises


def test_unseen_category_is_an_error_naming_the_column_and_the_value_when_asked():
    df = _frame()
    b = Binarizer(sensitive="group", numeric="quantile", conjunctions=False)
    b.set_params(handle_unknown="error").fit(df)
    new = df.head(3).copy()
    new["city"] = new["city"].astype(object)
    new.loc[new.index[0], "city"] = "Nice"
    with pytest.raises(ValueError, match=r"'city': 1 rows .*Nice.*known ones.*Paris"):
        b.transform(new)
    assert b.transform(new, terms=["color:red", "not count:>=8"]).shape == (3, 2)  # not read


def test_unseen_category_sets_no_antecedent_of_its_column_and_warns_when_ignored():
    df = _frame()
    b = Binarizer(sensitive="group", numeric="quantile", conjunctions=False).fit(df)
    new = df.head(5).copy()
    new["city"] = new["city"].astype(object)
    new.loc[new.index[0], "city"] = "Nice"
    with pytest.warns(UnseenCategoryWarning, match=r"'city': 1 rows .*Nice"):
        out = b.set_params(handle_unknown="ignore").transform(new).to_numpy()
    names = list(b.get_feature_names_out())
    assert out[0, names.index("city:Paris")] == 0 and out[0, names.index("city:Lyon")] == 0
    assert out[0, names.index("not city:Paris")] == 1 and out[0, names.index("not city:Lyon")] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(b.transform(df.head(5)), b.transform(df)[:5])


def test_transform_needs_the_fitted_columns():
    b = Binarizer(sensitive="group", numeric="quantile").fit(_frame())
    with pytest.raises(ValueError, match=r"lacks the columns .*'score'"):
        b.transform(_frame().drop(columns="score"))


# ------------------------------------------------------------------ scikit-learn conventions


def test_parameters_live_in_init_and_clone_round_trips_them():
    b = Binarizer(sensitive="s", numeric="quantile", n_bins=3, min_support=0.2)
    params = clone(b).get_params()
    assert params["sensitive"] == "s" and params["n_bins"] == 3 and params["min_support"] == 0.2


def test_set_output_pandas_gives_a_frame_named_after_the_antecedents():
    df = _frame()
    b = Binarizer(sensitive="group", numeric="quantile").set_output(transform="pandas")
    out = b.fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(b.get_feature_names_out())
    assert out.index.equals(df.index)


def test_fit_transform_equals_fit_then_transform_and_works_in_a_pipeline():
    df = _frame()
    y = (df["score"] > 0).astype(int)
    b = Binarizer(sensitive="group", cut_points={"count": [3, 6]})
    np.testing.assert_array_equal(b.fit_transform(df, y), clone(b).fit(df, y).transform(df))
    pipe = make_pipeline(Binarizer(sensitive="group", numeric="quantile"))
    assert pipe.fit_transform(df).shape[0] == len(df)


def test_cut_points_that_differ_beyond_six_digits_get_distinct_names():
    # MDLP puts cuts midway between distinct values; values 1e-7 apart give cuts that six
    # significant digits print alike ('x:1-1' twice): the names carry the digits that matter.
    values = np.array([1.0, 1.00000015, 1.00000025, 1.00000035, 2.0] * 4)
    frame = pd.DataFrame({"x": values})
    b = Binarizer(
        cut_points={"x": [1.0000001, 1.0000002, 1.0000003]}, negations=False, conjunctions=False
    ).fit(frame)
    names = list(b.get_feature_names_out())
    assert names == [
        "x:<1.0000001",
        "x:1.0000001-1.0000002",
        "x:1.0000002-1.0000003",
        "x:>=1.0000003",
    ]
    assert b.transform(frame).sum(axis=0).tolist() == [4, 4, 4, 8]
    y = (values > 1.0000002).astype(int)
    mdlp = Binarizer(negations=False, conjunctions=False).fit(pd.DataFrame({"x": values}), y)
    assert len(set(mdlp.get_feature_names_out())) == len(mdlp.get_feature_names_out())
    assert all("1-1" not in n for n in mdlp.get_feature_names_out())


def test_cut_points_printed_with_six_digits_keep_their_names():
    b = Binarizer(cut_points={"x": [0.1234567, 5119.0]}, negations=False, conjunctions=False)
    names = list(b.fit(pd.DataFrame({"x": [0.0, 1.0, 6000.0]})).get_feature_names_out())
    assert names == ["x:<0.123457", "x:0.123457-5119", "x:>=5119"]


def test_a_model_saved_with_six_digit_cut_names_still_loads():
    """fairlist 0.1 printed cuts with 6 digits: its names (``x:1-1``) still load, as written."""
    from fairlist.estimator import FairRuleListClassifier

    rng = np.random.default_rng(0)
    x = rng.choice([1.0, 1.00000015, 1.00000025, 2.0], 200)
    frame = pd.DataFrame({"x": x, "g": rng.choice(["a", "b"], 200)})
    y = (x > 1.0000002).astype(int)
    binarizer = Binarizer(cut_points={"x": [1.0000001, 1.0000002]}, conjunctions=False)
    clf = FairRuleListClassifier(binarizer=binarizer, time_limit=None)
    clf.fit(frame, y, sensitive_features="g")
    text = json.dumps(clf.to_dict())
    for new, old in [("1.0000001-1.0000002", "1-1"), ("<1.0000001", "<1"), (">=1.0000002", ">=1")]:
        text = text.replace(f"x:{new}", f"x:{old}")
    loaded = FairRuleListClassifier.from_dict(json.loads(text))
    assert "x:1-1" in loaded.binarizer_.get_feature_names_out()
    assert loaded.predict(frame).tolist() == clf.predict(frame).tolist()


# ------------------------------------------------------------------ deadlines and resource requests


def test_every_stage_of_binarizing_checks_the_deadline():
    import time

    from fairlist.errors import TimeLimitError

    past = time.perf_counter() - 1
    rng = np.random.default_rng(0)
    with pytest.raises(TimeLimitError, match="MDLP ranges cut"):
        mdlp_cut_points(rng.normal(size=500), rng.integers(0, 2, 500), deadline=past)
    df = _frame(n=200)
    y = (df["count"] > 4).to_numpy().astype(int)
    with pytest.raises(TimeLimitError, match="columns checked for identifiers"):
        Binarizer(sensitive="group").fit(df, y, deadline=past)
    b = Binarizer(sensitive="group").fit(df, y)
    with pytest.raises(TimeLimitError, match="columns read"):
        b.transform(df, deadline=past)
    with pytest.raises(TimeLimitError):
        b.fit_transform(df, y, deadline=past)


def test_a_transform_larger_than_the_memory_is_refused_with_its_estimate(monkeypatch):
    import fairlist.binarize.binarizer as module  # where _memory_bytes is read

    df = _frame(n=200)
    b = Binarizer(sensitive="group", numeric="quantile").fit(df)
    monkeypatch.setattr(module, "_memory_bytes", lambda: 1000)
    with pytest.raises(ValueError, match=r"200 rows x \d+ antecedents would take about"):
        b.transform(df)
    assert b.transform(df, terms=["city:Paris"]).shape == (200, 1)  # 400 bytes: fits


def test_transform_of_named_terms_equals_the_full_transforms_columns():
    df = _frame(n=200, seed=7)
    y = (df["score"] > 0).to_numpy().astype(int)
    b = Binarizer(sensitive="group", min_support=0.05).fit(df, y)
    full = b.transform(df)
    names = list(b.get_feature_names_out())
    terms = [names[-1], names[0], names[len(names) // 2], names[-1]]
    part = b.transform(df, terms=terms)
    assert list(part.columns) == terms
    np.testing.assert_array_equal(part.to_numpy(), full[terms].to_numpy())
    np.testing.assert_array_equal(b.transform(df, terms=[3, 1]), full.iloc[:, [3, 1]])
    np.testing.assert_array_equal(b.fit_transform(df, y), full)
    with pytest.raises(ValueError, match="'nope' is not an antecedent"):
        b.transform(df, terms=["nope"])
    one = names.index(next(n for n in names if n.startswith("city:")))
    assert b.transform(df[["city"]], terms=[one]).shape == (200, 1)  # reads city only


@pytest.mark.parametrize("seed", range(3))
def test_more_bins_than_rows_split_the_rows_as_the_interpolated_quantiles_do(seed):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(size=150).round(1), np.zeros(50)])
    cuts = quantile_cut_points(x, 10**6)
    assert cuts.size == np.unique(x).size - 1
    interpolated = np.unique(np.quantile(x, np.linspace(0, 1, 1001)[1:-1]))
    interpolated = interpolated[interpolated > x.min()]  # (what n_bins=1000 cut before)
    old = np.unique(np.searchsorted(interpolated, x, "right"), return_inverse=True)[1]
    new = np.unique(np.searchsorted(cuts, x, "right"), return_inverse=True)[1]
    np.testing.assert_array_equal(old, new)
