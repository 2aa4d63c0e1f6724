"""Smoke test of an installed fairlist (run from outside the repository).

Used by .ci/wheel and by cibuildwheel's test-command (pyproject.toml). Checks that the installed
package and its compiled core are the ones imported, fits a small fair rule list with the C++
branch-and-bound, and runs the command line's --help and --version.
"""

import pathlib
import subprocess
import sys

import numpy as np

import fairlist
from fairlist import FairRuleListClassifier, _core

# The installed package, not a source folder.
for module in (fairlist, _core):
    path = pathlib.Path(module.__file__).resolve()
    assert path.is_relative_to(pathlib.Path(sys.prefix).resolve()), path

rng = np.random.default_rng(0)
X = rng.integers(0, 2, size=(200, 6)).astype(np.uint8)
y = (X[:, 0] | X[:, 1]).astype(np.uint8)
clf = FairRuleListClassifier(max_length=2)
clf.fit(X, y, sensitive_features=X[:, 5].astype(bool))
assert clf.score(X, y) == 1.0, clf.rule_list_

for args in (["--version"], ["--help"]):
    subprocess.run([sys.executable, "-m", "fairlist", *args], check=True, stdout=subprocess.DEVNULL)
print(f"smoke test passed: fairlist {fairlist.__version__} from {path.parent.parent}")
