"""Run STreeD's fair decision trees (the ``pystreed`` PyPI package) as a black box.

This script runs in a *separate* virtual environment holding ``pystreed`` (``python -m venv
streed; streed/bin/pip install pystreed pandas``); it never imports fairlist. It fits
``STreeDGroupFairnessClassifier`` (optimal trees of a given depth under a demographic-parity
cap, the sensitive column given to it as its first feature) on a binarized CSV in the paper's
layout (two group columns, the antecedents, the label last) and prints one JSON object: the
tree's training predictions (so that the caller computes accuracy and unfairness with its own
code), whether STreeD proved the tree optimal, its depth, leaves, seconds and the tree.

    $STREED_PYTHON benchmarks/streed_reference.py DATA.csv --depth 3 --limit 0.05
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd
from pystreed import STreeDGroupFairnessClassifier


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", help="binarized CSV: 2 group columns, antecedents, label last")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--limit", type=float, default=0.05, help="demographic-parity cap")
    ap.add_argument("--time-limit", type=float, default=600.0)
    args = ap.parse_args()

    frame = pd.read_csv(args.data)
    X = frame.iloc[:, 2:-1].to_numpy(np.int32)
    y = frame.iloc[:, -1].to_numpy(np.int32)
    group = frame.iloc[:, 0].to_numpy(np.int32)  # the paper's protected group, as the caller's
    model = STreeDGroupFairnessClassifier(
        sensitive_feature=0,
        discrimination_limit=args.limit,
        max_depth=args.depth,
        time_limit=args.time_limit,
    )
    start = time.perf_counter()
    model.fit(np.column_stack([group, X]), y)
    seconds = time.perf_counter() - start
    fitted = model.is_fitted()
    print(
        json.dumps(
            {
                "predictions": (
                    model.predict(np.column_stack([group, X])).astype(int).tolist()
                    if fitted
                    else None
                ),
                "optimal": bool(fitted and model.fit_result.is_optimal()),
                "depth": int(model.get_depth()) if fitted else None,
                "leaves": int(model.get_n_leaves()) if fitted else None,
                "seconds": seconds,
                "tree": str(model.get_tree()) if fitted else None,
            }
        )
    )


if __name__ == "__main__":
    main()
