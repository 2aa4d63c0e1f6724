"""The ``fairlist`` command line.

Commands: ``fit``, ``predict``, ``pareto``, ``verify``, ``rashomon``, ``report``, ``datasets``,
``show``, ``export``. ``DATA`` is a CSV
file or a built-in data set name (``compas``, ``adult``; see ``fairlist datasets``). A CSV whose
columns (other than the target and the sensitive one) are all 0/1 is used as antecedents as is;
otherwise the columns go through :class:`fairlist.binarize.Binarizer`.

Exit codes:

====  =====================================================================
0     success
1     error (bad data, bad value, missing file; one readable line on stderr)
2     usage error (unknown option, missing argument; printed by Typer, a JSON object under
      ``--json``)
3     no fair rule list: infeasible (proved) or none found before a limit
4     ``verify``: the two engines disagree or did not both finish
5     ``fit --require-optimal``: a limit stopped the search before a certificate
130   interrupted by Ctrl-C (SIGINT): the best result so far is printed and written
      (``fit``'s model, stop reason ``interrupted``; ``pareto``'s points, partial;
      ``verify``'s engines, one not yet started reads ``not run``), or the one line
      ``error: interrupted before any result`` when the interrupt came before any
      result (at any moment of start-up too: ``fairlist.interrupts.exit_on_signals``)
143   terminated by SIGTERM (a scheduler, a container, ``timeout``): as 130
====  =====================================================================

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
    "EXIT_INFEASIBLE",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CERTIFIED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "app",
    "main",
]
