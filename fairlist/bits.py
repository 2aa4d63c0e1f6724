"""Rows of booleans as bits: packed into little-endian 64-bit words, unpacked, their set bits
counted, and hashed. The Rashomon set's views (its predictions, one row a list) and the
binarizer's pair counts (one row a column) work on these words with numpy, 64 rows at a time.

>>> import numpy as np
>>> words = pack_rows(np.array([[1, 0, 1], [0, 0, 1]], dtype=bool), 1)
>>> popcount_rows(words).tolist(), unpack_rows(words, 3).tolist()
([2, 1], [[1, 0, 1], [0, 0, 1]])
>>> bool(hash_rows(words[:1])[0] == hash_rows(words[:1].copy())[0])
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["pack_rows", "unpack_rows", "popcount_rows", "hash_rows"]


def pack_rows(rows: np.ndarray, words: int) -> np.ndarray:
    """Boolean rows (r, n) as bits: (r, words) little-endian 64-bit words, bit i of a row's
    word i // 64 is column i."""
    packed = np.packbits(rows, axis=1, bitorder="little")
    out = np.zeros((rows.shape[0], words * 8), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view(np.dtype("<u8"))


def unpack_rows(bits: np.ndarray, n: int) -> np.ndarray:
    """:func:`pack_rows`'s inverse: (r, words) words as (r, n) 0/1 uint8."""
    raw = np.ascontiguousarray(bits, dtype=np.dtype("<u8")).view(np.uint8)
    return np.unpackbits(raw, axis=1, count=n, bitorder="little")


POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount_rows(words: np.ndarray) -> np.ndarray:
    """The number of set bits of each row of words (r, w) -> (r,)."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    raw = np.ascontiguousarray(words).view(np.uint8)
    return POPCOUNT8[raw].sum(axis=1, dtype=np.int64)


#: The hash's per-word keys (fixed: a deterministic grouping), drawn once for any width.
HASH_KEYS = np.random.default_rng(0x5EED).integers(0, 2**63, size=1 << 16, dtype=np.uint64) | 1


def hash_rows(words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of words (r, w): each word mixed with a key of its position
    (splitmix64's finaliser, a bijection of 64-bit words), the mixed words added modulo 2**64.
    Equal rows hash alike; unequal rows almost never do, and the grouping checks them bit by
    bit anyway (the Rashomon set's grouping into classifiers)."""
    r, w = words.shape
    keys = np.resize(HASH_KEYS, w) * np.arange(1, w + 1, dtype=np.uint64)  # no period
    with np.errstate(over="ignore"):
        x = words ^ keys[None, :]
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        return x.sum(axis=1, dtype=np.uint64)
