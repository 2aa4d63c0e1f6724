"""``python -m fairlist.cli``: the command line, as ``python -m fairlist`` (:func:`main`)."""

if __name__ == "__main__":  # pragma: no cover
    import sys

    from . import main

    sys.exit(main())
