"""``python -m fairlist``: the command line (:func:`fairlist.cli.main`).

The package's ``__init__`` has already made a signal during start-up end the program with
130/143 and one line (:func:`fairlist.interrupts.started_as_command_line`); installing the same
handlers again here costs nothing.
"""

if __name__ == "__main__":
    from .interrupts import exit_on_signals

    exit_on_signals()
    from .cli import main

    main()
