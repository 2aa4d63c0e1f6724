"""The binarizer's time limit: one check, called between columns, MDLP ranges, pairs and
blocks of antecedents (tests move this module's clock, ``time``, to reach the checks)."""

from __future__ import annotations

import time

from ..errors import TimeLimitError


def check_deadline(deadline: float | None, done: int, total: int, what: str) -> None:
    """A :class:`TimeLimitError` when ``deadline`` (a ``time.perf_counter()`` time) is past."""
    if deadline is not None and time.perf_counter() >= deadline:
        raise TimeLimitError(
            f"binarizing did not finish within the time limit ({done} of {total} {what}); "
            "raise the time limit, or make fewer antecedents (max_antecedents, a higher "
            "min_support, conjunctions=False, or fewer columns)"
        )
