"""Quick start: a fair rule list for COMPAS in a few lines.

    python examples/quickstart.py            # reads ../shared/data or downloads the raw file

Learns the rule list that minimises training error + 0.01 per rule subject to statistical
parity <= 0.05 between African-American and Caucasian defendants, then explains it.
"""

from sklearn.model_selection import train_test_split

from fairlist.datasets import load_compas
from fairlist.estimator import FairRuleListClassifier
from fairlist.metrics import unfairness

data = load_compas()  # binary antecedents such as "age:18-20 && gender:Male"
y = data.y.map(dict(enumerate(data.labels)))  # "recidivism" / "no recidivism"
X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(
    data.X, y, data.sensitive, test_size=0.3, random_state=0, stratify=y
)

clf = FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.01, max_nodes=500_000)
clf.fit(X_train, y_train, sensitive_features=s_train, protected=data.protected)

print(clf.rule_list_)
print(f"\nstatus: {clf.status_}; training unfairness {clf.unfairness_:.3f}")
pred = clf.predict(X_test)
test_unfairness = unfairness(
    y_test == "recidivism", pred == "recidivism", s_test, "SP", protected=data.protected
)
print(f"test accuracy {clf.score(X_test, y_test):.3f}, test unfairness {test_unfairness:.3f}")
print(clf.get_rules().to_string())
clf.save("compas_sp.json")  # JSON, not pickle; FairRuleListClassifier.load(...) reads it back
