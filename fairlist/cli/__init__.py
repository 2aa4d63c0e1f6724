"""The ``fairlist`` command line.

Commands: ``fit``, ``predict``, ``pareto``, ``verify``, ``rashomon``, ``report``, ``datasets``,
``show``, ``export``. ``DATA`` is a CSV
file or a built-in data set name (``compas``, ``adult``; see ``fairlist datasets``). A CSV whose
columns (other than the target and the sensitive one) are all 0/1 is used as antecedents as is;
otherwise the columns go through :class:`fairlist.binarize.Binarizer`.

Exit codes: the table in ``docs/cli.md`` (0 success, 1 error, 2 usage, 3 no fair rule list,
4 ``verify``'s engines disagree, 5 ``fit --require-optimal`` uncertified, 6 ``verify``
inconclusive, 130 Ctrl-C, 143 SIGTERM), declared in :mod:`fairlist.cli.program`.

SIGTERM is handled as Ctrl-C (:class:`fairlist.interrupts.InterruptSignals`, installed for the
length of a command): one signal stops the whole command, worker processes included.

Library errors are caught here only (:func:`fairlist.cli.program.user_errors`), and printed as
one readable line.

The package, one module a concept: :mod:`~fairlist.cli.program` (the Typer application, the
exit codes, errors, signals, :func:`main`), :mod:`~fairlist.cli.options` (the options several
commands take, declared once), :mod:`~fairlist.cli.progress` (the progress displays), and one
module per command group, whose commands are plain functions: :mod:`~fairlist.cli.fit`
(``fit``, ``predict``), :mod:`~fairlist.cli.fronts` (``pareto``, ``verify``),
:mod:`~fairlist.cli.rashomon` (``rashomon``), :mod:`~fairlist.cli.report` (``report``),
:mod:`~fairlist.cli.data` (``datasets``,
``show``, ``export``). :data:`COMMANDS` registers them on the application, in the order
``fairlist --help`` lists them.
"""

from __future__ import annotations

from . import data, fit, fronts, rashomon, report
from .program import (
    EXIT_DISAGREE,
    EXIT_ERROR,
    EXIT_INCONCLUSIVE,
    EXIT_INFEASIBLE,
    EXIT_INTERRUPTED,
    EXIT_NOT_CERTIFIED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    app,
    main,
)

#: The commands, in the order ``fairlist --help`` lists them; a command's name is its
#: function's (``_`` read as ``-``), its help the docstring.
COMMANDS = (
    fit.fit,
    fit.predict,
    fronts.pareto,
    fronts.verify,
    rashomon.rashomon,
    report.report,
    data.datasets,
    data.show,
    data.export,
)
for _command in COMMANDS:
    app.command()(_command)

__all__ = [
    "COMMANDS",
    "EXIT_DISAGREE",
    "EXIT_ERROR",
    "EXIT_INCONCLUSIVE",
    "EXIT_INFEASIBLE",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CERTIFIED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "app",
    "main",
]
