"""From a table to binary antecedents: discretise, one-hot, negate and mine conjunctions.

The branch-and-bound and CP-SAT engines read a bit-matrix of *antecedents*: boolean tests such as
``age:18-20``, ``not priors:0`` or ``age:21-22 && gender:Male``. :class:`Binarizer` builds that
matrix from a pandas DataFrame the way the FairCORELS paper does (its section "Experimental
setup"):

1. **Single antecedents** ``R``. Categorical, string and boolean columns are one-hot encoded
   (``workclass:private``). Numeric columns are cut into intervals, either at cut points given
   by the user, or learned by the MDLP criterion of Fayyad & Irani (1993, supervised, the paper's
   choice for Adult), or at quantiles (unsupervised). Intervals are half-open, ``[c_i, c_{i+1})``.
2. **Negations** ``R̄``: ``not X`` for every single antecedent ``X``.
3. **Two-clause conjunctions** ``T = {r_i ∧ r_j : r_i ≠ r_j ∈ R, supp(r_i ∧ r_j) ≥ σ}``
   (``σ`` is ``min_support``). Two antecedents from the same column are never paired: the
   intervals or categories of one column are disjoint, so their conjunction is empty.

The sensitive column is never an antecedent: name it with ``sensitive=`` and the transformer
leaves it out (and checks that it splits the rows into at least two groups).

Wide tables
-----------
A column whose distinct values are nearly one per row (names, ids, case numbers, timestamps, an
integer row id) is left out with an :class:`IdLikeColumnWarning` naming it (``keep_id_columns``
keeps it). When more antecedents are made than ``max_antecedents`` (300 by default), the most
informative about the label are kept (:func:`information_gain`), conjunctions being mined among
the best single antecedents only and within ``max_pair_memory_mb`` (estimated by
:func:`pair_memory` before pairing); an :class:`AntecedentCapWarning` gives the numbers made and
kept. A certified list is then optimal over the kept antecedents (docs/large-tables.md).

Antecedent names
----------------
``column:value`` for a category; for an interval of a numeric column ``column:<c1``,
``column:c_i-c_j`` and ``column:>=c_k``. On an integer-valued column the middle intervals are
written inclusively (``age:21-22`` is ``21 <= age <= 22``, ``priors:1`` is ``priors == 1``) and
cut points are integers. A separator ``..`` replaces ``-`` when a bound is negative. Negations
read ``not X`` and conjunctions ``X && Y``.

Missing values
--------------
``handle_missing="error"`` (the default) refuses a column with missing values and names it and
the number of missing rows: the paper drops such rows, and a silent choice would change the
meaning of every antecedent. ``handle_missing="category"`` makes "missing" its own antecedent,
``column:missing``. At ``transform`` time a category (or a missing value) that was not seen at
``fit`` time sets none of the column's antecedents (so every negation of that column is true),
with a :class:`UnseenCategoryWarning` (``handle_unknown="error"`` refuses it); only the columns
read are checked: ``transform(X, terms=[...])`` reads only those the named antecedents need.

Infinite values are refused, at ``fit`` and at ``transform`` time, naming the column and the
first row: an interval with an infinite bound (``a:>=inf``) is an antecedent no finite value sets.
When no column yields an antecedent, ``fit`` raises one error giving each column's reason (a
single value, or no cut point) instead of one warning a column; when the table is 0/1 but for
a few cells (one 0.5, say: it makes its column numeric), the error names the first such cell.

Performance
-----------
Everything is vectorised with numpy: MDLP works on the per-value class counts with cumulative
sums (one pass per accepted cut), and the supports of all pairs of single antecedents come from
the single antecedents packed into 64-bit words (an AND and a popcount per word and pair).

Modules
-------
``cuts`` (MDLP and quantile cut points, interval names), ``columns`` (what fit learns about
one column, ID-like columns, the codes), ``pairs`` (supports of conjunctions, their memory,
the mining), ``budget`` (the ranking and the antecedent budget), ``binarizer`` (the
:class:`Binarizer`: fit, transform, JSON), ``messages`` (the warnings), ``deadline`` (the time
limit's check). Every public name is importable from ``fairlist.binarize``.
"""

from __future__ import annotations

# The names of __all__, and (``X as X``: re-exported on purpose) the module-level names that
# other fairlist modules import from here.
from .binarizer import BINARIZER_FORMAT as BINARIZER_FORMAT
from .binarizer import BINARIZER_VERSION as BINARIZER_VERSION
from .binarizer import DEFAULT_MAX_ANTECEDENTS, Binarizer
from .binarizer import DEFAULT_MAX_PAIR_MEMORY_MB as DEFAULT_MAX_PAIR_MEMORY_MB
from .binarizer import LATER_PARAMETERS as LATER_PARAMETERS
from .binarizer import PARAMETER_CONSTRAINTS as PARAMETER_CONSTRAINTS
from .budget import information_gain
from .columns import ID_INTEGER_SHARE as ID_INTEGER_SHARE
from .columns import ID_MIN_DISTINCT as ID_MIN_DISTINCT
from .columns import ID_TEXT_SHARE as ID_TEXT_SHARE
from .columns import MISSING as MISSING
from .cuts import interval_names as interval_names
from .cuts import mdlp_cut_points, quantile_cut_points
from .messages import NO_CUT as NO_CUT
from .messages import QUANTILE_ADVICE as QUANTILE_ADVICE
from .messages import (
    AntecedentCapWarning,
    ConstantColumnWarning,
    IdLikeColumnWarning,
    UnseenCategoryWarning,
)
from .pairs import pair_counts, pair_memory

__all__ = [
    "Binarizer",
    "UnseenCategoryWarning",
    "ConstantColumnWarning",
    "AntecedentCapWarning",
    "IdLikeColumnWarning",
    "DEFAULT_MAX_ANTECEDENTS",
    "information_gain",
    "pair_memory",
    "mdlp_cut_points",
    "quantile_cut_points",
    "pair_counts",
]
