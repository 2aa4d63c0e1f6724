"""Problem validation at the edge, and evaluation of a rule list on the training data."""

from __future__ import annotations

import numpy as np
import pytest

from fairlist import Limits, Problem, Rule, RuleList, _core
from fairlist.metrics import unfairness


def small():
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]], dtype=np.uint8)
    y = np.array([1, 1, 0, 0, 1, 0], dtype=np.uint8)
    g = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    return X, y, g


def test_evaluate_agrees_with_the_metrics_module():
    X, y, g = small()
    p = Problem(X, y, g, metric="EOdds", epsilon=0.1, lam=0.01, feature_names=["a", "b"])
    rl = RuleList([Rule("b", 0)], default=1)
    ev = p.evaluate(rl)
    pred = rl.predict(__import__("pandas").DataFrame(X, columns=["a", "b"]))
    assert ev.errors == int(np.sum(pred != y))
    assert ev.objective == pytest.approx(ev.errors / 6 + 0.01)
    assert ev.unfairness == unfairness(y, pred, g, "EOdds")
    assert ev.fair == (ev.unfairness <= 0.1 + 1e-9)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"y": [1, 0]}, "y has 2 rows, X has 6"),
        ({"groups": np.ones(6, bool)}, "unprotected group is empty"),
        ({"groups": np.zeros(6, bool)}, "protected group is empty"),
        ({"epsilon": -0.1}, "'epsilon' parameter of Problem must be None or a real number >= 0"),
        (
            {"lam": -1.0},
            r"'lam' parameter of Problem must be 'auto' or a real number in \[0, inf\)",
        ),
        ({"max_length": -1}, r"'max_length' parameter of Problem must be None or an integer in \["),
        ({"metric": "accuracy"}, "'metric' parameter of Problem.*got 'accuracy'"),
        ({"feature_names": ["a"]}, "feature_names has 1 names, X has 2 columns"),
        ({"feature_names": ["a", "a"]}, "'a' appears more than once"),
        ({"X": np.full((6, 2), 2)}, "X must hold only 0/1"),
        ({"y": [1, 0, 1, 0, 1, np.nan]}, "y contains NaN"),
    ],
)
def test_bad_input_names_the_argument(change, message):
    X, y, g = small()
    kwargs = dict(X=X, y=y, groups=g) | change
    with pytest.raises(ValueError, match=message):
        Problem(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_nodes": 0}, r"'max_nodes' parameter of Limits must be None or an integer in \[1, "),
        ({"time_limit": -1}, "'time_limit' parameter of Limits must be None or a real number > 0"),
        ({"max_nodes": 2.5}, r"'max_nodes' parameter .* an integer in \[1, \d+\]; got 2.5"),
    ],
)
def test_limits_must_be_positive(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Limits(**kwargs)


def test_infinite_epsilon_means_unconstrained():
    X, y, g = small()
    assert Problem(X, y, g, epsilon=float("inf")).epsilon is None


def test_native_bit_packing_counts_captures():
    rng = np.random.default_rng(3)
    X = (rng.random((200, 7)) < 0.3).astype(np.uint8)
    mask = (rng.random(200) < 0.5).astype(np.uint8)
    packed = _core.pack_matrix(X)
    assert packed.shape == (7, 4) and packed.dtype == np.uint64
    counts = _core.count_captures(packed, _core.pack_bits(mask))
    assert counts.tolist() == (X[mask == 1].sum(axis=0)).tolist()


@pytest.mark.parametrize("implementation", ["dispatch", "scalar", "avx512"])
def test_native_capture_counts_match_numpy(implementation):
    # Word counts 0..40 cover the vector loop, its masked tail, and the empty case.
    if implementation == "avx512" and not _core.avx512_popcount():
        pytest.skip("this processor has no AVX-512 VPOPCNTDQ")
    rng = np.random.default_rng(4)
    for n in [0, 1, 63, 64, 65, *rng.integers(1, 40 * 64, size=40)]:
        rule, free, *masks = (rng.random((6, n)) < rng.random((6, 1))).astype(np.uint8)
        packed = _core.pack_matrix(np.ascontiguousarray(np.stack(masks, axis=1)))
        got = _core.capture_counts(
            _core.pack_bits(rule), _core.pack_bits(free), packed, implementation
        )
        x = rule & free
        assert got == [int(x.sum())] + [int((x & m).sum()) for m in masks]
