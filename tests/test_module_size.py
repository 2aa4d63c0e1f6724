"""Small modules of one concept (issue 38 item 8): no module of fairlist reaches 900 lines.

A module that grows past the limit has grown past one concept: split it by concept (as
``model_file`` was into the schema, its cursor, the binarizer's document and the agreement of
the figures), do not raise the limit.
"""

from __future__ import annotations

from pathlib import Path

import fairlist

PACKAGE = Path(fairlist.__file__).parent
LIMIT = 900


def test_every_module_is_under_the_limit():
    sizes = {
        str(p.relative_to(PACKAGE.parent)): len(p.read_text(encoding="utf-8").splitlines())
        for p in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 50  # (the package was found)
    assert {name: n for name, n in sizes.items() if n >= LIMIT} == {}
