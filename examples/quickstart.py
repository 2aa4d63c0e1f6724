"""Quick start: a fair rule list for COMPAS in a few lines.

    python examples/quickstart.py                      # about 10 s
    python examples/quickstart.py --out results/ --max-nodes 100000

Learns the rule list that minimises training error + 0.01 per rule subject to statistical
parity <= 0.05 between African-American and Caucasian defendants, explains it, measures it on a
held-out test set and saves the model as JSON in ``--out`` (default: a new temporary folder).

The data: ``--data-home`` if given, else ``$FAIRLIST_DATA_HOME``, else ``../shared/data``
beside the repository when it is there, else fairlist's cache (downloading the file once).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from sklearn.model_selection import train_test_split

from fairlist.datasets import ENV_DATA_HOME, load_compas
from fairlist.estimator import FairRuleListClassifier
from fairlist.metrics import unfairness

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", type=Path, default=None, help="folder of the data files")
    parser.add_argument("--out", type=Path, default=None, help="folder for the model file")
    parser.add_argument("--max-nodes", type=int, default=500_000, help="trie budget")
    args = parser.parse_args()
    home = args.data_home
    if home is None and not os.environ.get(ENV_DATA_HOME) and SHARED_DATA.is_dir():
        home = SHARED_DATA
    out = args.out or Path(tempfile.mkdtemp(prefix="fairlist-quickstart-"))
    out.mkdir(parents=True, exist_ok=True)

    data = load_compas(data_home=home)  # antecedents such as "age:18-20 && gender:Male"
    y = data.y.map(dict(enumerate(data.labels)))  # "recidivism" / "no recidivism"
    X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(
        data.X, y, data.sensitive, test_size=0.3, random_state=0, stratify=y
    )

    clf = FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.01, max_nodes=args.max_nodes)
    clf.fit(X_train, y_train, sensitive_features=s_train, protected=data.protected)

    print(clf.rule_list_)
    print(f"\nstatus: {clf.status_} (gap {clf.gap_:.6f})")
    print(f"training unfairness {clf.unfairness_:.3f}")
    pred = clf.predict(X_test)
    test_unfairness = unfairness(
        y_test == "recidivism", pred == "recidivism", s_test, "SP", protected=data.protected
    )
    print(f"test accuracy {clf.score(X_test, y_test):.3f}, test unfairness {test_unfairness:.3f}")
    print(clf.get_rules().to_string())
    clf.save(out / "compas_sp.json")  # JSON, not pickle; FairRuleListClassifier.load reads it
    print(f"\nmodel written to {out / 'compas_sp.json'}")


if __name__ == "__main__":
    main()
