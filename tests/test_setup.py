"""The search's set-up at scale: twin antecedents found on packed columns, the native build by
bit-block transposes, checked against the plain loops they replace and against brute force on
instances that span several 64-bit words of samples, of antecedents and of classes."""

from __future__ import annotations

import time
import types

import numpy as np
import pandas as pd
import pytest
from reference import random_weights, reference_solve

from fairlist import table
from fairlist._core import pack_matrix, transpose_packed
from fairlist.binarize import Binarizer
from fairlist.errors import TimeLimitError
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver, distinct_columns, distinct_packed


def loop_distinct_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The loop distinct_columns replaced (a dictionary of each column's packed bytes)."""
    packed = np.packbits(np.asarray(X, dtype=bool), axis=0)
    kept: list[int] = []
    slot: dict[bytes, int] = {}
    position = np.empty(X.shape[1], dtype=np.intp)
    for j in range(X.shape[1]):
        position[j] = slot.setdefault(packed[:, j].tobytes(), len(kept))
        if position[j] == len(kept):
            kept.append(j)
    return np.asarray(kept, dtype=np.intp), position


def matrix_with_twins(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """A 0/1 matrix of ``n`` rows whose columns repeat (twins, anywhere), with all-zero and
    all-one columns and columns that differ from another in one row only."""
    X = (rng.random((n, m)) < rng.uniform(0.01, 0.7, size=m)).astype(np.uint8)
    twins = rng.integers(0, m, size=(m // 3, 2))
    X[:, twins[:, 1]] = X[:, twins[:, 0]]
    X[:, rng.integers(0, m)] = 0
    X[:, rng.integers(0, m)] = 1
    near = rng.integers(0, m, size=2)
    X[:, near[1]] = X[:, near[0]]
    X[rng.integers(0, n), near[1]] ^= 1  # (the last row too, sometimes: a byte past a word)
    return X


@pytest.mark.parametrize("seed", range(12))
def test_distinct_columns_equals_the_loop_it_replaced(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 7, 63, 64, 65, 200, 1000, 5000]))
    m = int(rng.integers(1, 300))
    X = matrix_with_twins(rng, n, m)
    kept, position = distinct_columns(X)
    want_kept, want_position = loop_distinct_columns(X)
    assert kept.tolist() == want_kept.tolist()
    assert position.tolist() == want_position.tolist()
    assert (X[:, kept[position]] == X).all()  # each column's representative is its twin
    assert kept.dtype == position.dtype == np.intp
    # the same from booleans and from any nonzero numbers, and on packed columns
    for same in (X.astype(bool), X * 3.5):
        assert distinct_columns(same)[1].tolist() == want_position.tolist()
    assert distinct_packed(pack_matrix(X))[1].tolist() == want_position.tolist()


def test_distinct_columns_of_no_column():
    kept, position = distinct_columns(np.zeros((5, 0), dtype=np.uint8))
    assert kept.size == position.size == 0


@pytest.mark.parametrize("shape", [(1, 1), (3, 70), (64, 64), (130, 65), (200, 129), (5, 300)])
def test_transpose_packed_is_the_transpose(shape):
    rows, bits = shape
    X = (np.random.default_rng(rows * bits).random((bits, rows)) < 0.4).astype(np.uint8)
    packed = pack_matrix(X)  # rows rows of `bits` bits
    assert (transpose_packed(packed, bits) == pack_matrix(np.ascontiguousarray(X.T))).all()
    assert (transpose_packed(transpose_packed(packed, bits), rows) == packed).all()


@pytest.mark.parametrize("seed", range(4))
def test_build_over_several_words_matches_brute_force(seed):
    """Samples, antecedents and classes each over several 64-bit words (the block transposes'
    edges), samples of weight 0 dropped, many identical rows: the classes and rows the core
    counts are numpy's, and its optimum is brute force's."""
    rng = np.random.default_rng(seed)
    n, m = 400, 70
    base = (rng.random((90, m)) < rng.uniform(0.05, 0.5, size=m)).astype(np.uint8)
    X = base[rng.integers(0, len(base), size=n)]  # at most 90 distinct rows
    protected = rng.random(n) < 0.4
    protected[:2] = True, False
    y = (rng.random(n) < 0.2 + 0.6 * X[:, 0]).astype(np.uint8)
    weights = random_weights(rng, n, "integer") if seed % 2 else None
    if weights is not None:
        weights[:2] = 1
    problem = Problem(X, y, protected, sample_weight=weights, epsilon=0.1, lam=0.004, max_length=2)
    result = BnBSolver().solve(problem.with_limits(Limits(max_nodes=10**6)))
    reference = reference_solve(problem, 2)
    assert result.objective == pytest.approx(reference.objective, abs=1e-12)
    live = np.ones(n, bool) if weights is None else weights > 0
    classes = np.unique(X[live], axis=0)
    rows = np.unique(np.column_stack([X, protected, y])[live], axis=0)
    assert result.stats["n_sample_classes"] == len(classes)
    assert result.stats["n_rows"] == len(rows)


def test_to_antecedents_looks_at_the_deadline_between_blocks_of_antecedents(monkeypatch):
    """The antecedents are written a block at a time with a look at the clock between two:
    past the deadline, a TimeLimitError says how far it got; before it, the blocks make the
    same matrix as one transform."""
    from fairlist import binarize

    # the names are patched where they are read: _BLOCK in binarizer.py, time in deadline.py
    from fairlist.binarize import binarizer as binarizer_module
    from fairlist.binarize import deadline as deadline_module

    rng = np.random.default_rng(0)
    raw = pd.DataFrame({"a": rng.integers(0, 50, 600), "b": rng.choice(list("xyzw"), 600)})
    y = rng.integers(0, 2, 600)
    binarizer = Binarizer(numeric="quantile")
    deadline = time.perf_counter() + 1e6
    assemble = binarizer_module.Binarizer._assemble  # reads _BLOCK from binarizer_module
    assert assemble.__globals__ is vars(binarizer_module) and "_BLOCK" in assemble.__code__.co_names
    monkeypatch.setattr(binarizer_module, "_BLOCK", 3)  # blocks of 3 antecedents
    fitted, X, names = table.to_antecedents(binarizer, raw, y, deadline=deadline)
    assert X.dtype == np.uint8 and X.flags.c_contiguous and X.shape[0] == 600
    assert (X == fitted.transform(raw, as_array=True)).all()
    assert names == [str(c) for c in fitted.get_feature_names_out()]

    real = time.perf_counter

    def late_clock() -> float:  # past the deadline once the antecedents are being written
        return deadline + 1 if writing["on"] else real()

    writing = {"on": False}
    original = binarize.Binarizer._assemble

    def assemble(self, *args, **kwargs):
        writing["on"] = True
        return original(self, *args, **kwargs)

    monkeypatch.setattr(binarize.Binarizer, "_assemble", assemble)
    check = deadline_module.check_deadline  # reads the clock from deadline_module
    assert check.__globals__ is vars(deadline_module) and "time" in check.__code__.co_names
    monkeypatch.setattr(deadline_module, "time", types.SimpleNamespace(perf_counter=late_clock))
    with pytest.raises(TimeLimitError, match=r"\(0 of \d+ antecedents written\)"):
        table.to_antecedents(binarizer, raw, y, deadline=deadline)


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (64, 64), (65, 130), (1000, 77), (130, 1)])
def test_pack_matrix_packs_each_column_into_words(shape):
    rng = np.random.default_rng(sum(shape))
    X = (rng.random(shape) < 0.3) * rng.integers(1, 4, shape)  # any nonzero byte is a 1
    X = X.astype(np.uint8)
    columns = np.packbits(X.T != 0, axis=1, bitorder="little")
    want = np.zeros((shape[1], (shape[0] + 63) // 64 * 8), dtype=np.uint8)
    want[:, : columns.shape[1]] = columns
    assert (pack_matrix(X) == want.view("<u8")).all()
