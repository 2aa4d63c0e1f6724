"""The binarizer's warnings, and the reasons it gives for a column that yields no antecedent."""

from __future__ import annotations

NO_CUT = "has no cut point"
"""Why a numeric column yields no antecedent when MDLP finds no cut worth making."""

QUANTILE_ADVICE = (
    "MDLP cuts only where the labels justify a cut; to cut it at quantiles pass cuts='quantile' "
    "to the estimator, numeric='quantile' to a Binarizer, or --cuts quantile on the command line"
)


class UnseenCategoryWarning(UserWarning):
    """A value met at ``transform`` time was not seen at ``fit`` time; it sets no antecedent."""


class ConstantColumnWarning(UserWarning):
    """A column is always in one category or interval at ``fit`` time (a single value, or no
    cut point); it yields no antecedent."""


class AntecedentCapWarning(UserWarning):
    """``max_antecedents`` removed some antecedents, or ``max_pair_memory_mb`` kept some single
    antecedents out of the conjunctions; the message gives the numbers."""


class IdLikeColumnWarning(UserWarning):
    """Columns with nearly one distinct value per row (names, ids, timestamps) were left out;
    ``keep_id_columns=True`` keeps them."""
