"""No module of fairlist imports a private name of another module (issue 38 item 5).

The rule, checked on every module of the package (``fairlist/**/*.py``, functions included):

* A name with a leading underscore (``_describe``, ``_At``; not a dunder such as ``__version__``)
  is private to the module that defines it. No other module imports it (``from .x import _y``,
  ``from fairlist.x import _y``) or reads it off an imported module (``from . import x`` then
  ``x._y``). To share it, the module makes it public: a name without the underscore, listed in
  its ``__all__`` where it has one.
* A module whose own name has a leading underscore (``fairlist._params``, ``_validation``,
  ``_json``, ``_version``, and the compiled ``_core`` and ``_bound``) is a private *module*: it
  is private to the package, not to itself, so any fairlist module may import it (``from . import
  _core``) and its public names (``from ._params import N_JOBS``). Its private names stay its own.

Tests are not checked: a test may reach a private name to test it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import fairlist

PACKAGE = Path(fairlist.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """Whether the dotted ``name`` is a module of the package (a .py, a package, or a compiled
    extension declared by its .pyi)."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return (
        path.with_suffix(".py").is_file()
        or (path / "__init__.py").is_file()
        or (path.with_suffix(".pyi").is_file())
    )


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(module: str, text: str, is_package: bool = False) -> list[str]:
    """Each private name of another fairlist module that ``module`` (its source ``text``)
    imports or reads off an imported module: ``"module: from source import name"`` or
    ``"module: source.name"``."""
    tree = ast.parse(text)
    found: list[str] = []
    modules: dict[str, str] = {}  # local name -> the fairlist module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, is_package, node)
            if source != "fairlist" and not source.startswith("fairlist."):
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if _is_module(full):  # a module: private modules are the package's
                    modules[alias.asname or alias.name] = full
                elif _private(alias.name) and source != module:
                    found.append(f"{module}: from {source} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("fairlist.") and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and not _is_module(f"{modules[node.value.id]}.{node.attr}")
        ):
            found.append(f"{module}: {modules[node.value.id]}.{node.attr}")
    return found


def test_no_module_imports_a_private_name_of_another():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += private_imports(_module_name(path), text, path.name == "__init__.py")
    assert found == [], "private names imported across modules:\n" + "\n".join(found)


def test_the_check_finds_a_planted_private_import():
    """The check is not blind: a module importing ``_y`` from a sibling, or reading ``x._y``,
    is reported; a private module and its public names are not."""
    text = (
        "from ..plotting import _new, plot_fronts\n"
        "from .._params import N_JOBS\n"
        "from .. import _json, plotting\n"
        "def f():\n"
        "    from . import tables\n"
        "    return tables._hidden, plotting.public, _json.read_json\n"
    )
    assert private_imports("fairlist.study.planted", text) == [
        "fairlist.study.planted: from fairlist.plotting import _new",
        "fairlist.study.planted: fairlist.study.tables._hidden",
    ]
