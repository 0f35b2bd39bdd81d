"""``python -m training.play`` (``canasta-play``): terminal play
:func:`canasta_env.bots.play.main`, run with the ``training`` package imported so that
``--policy`` may also name a ``.zip`` checkpoint (importing ``training`` registers the
``.zip`` loader; see :mod:`canasta_env.bots.loader`). Options: ``--help``."""

from canasta_env.bots.play import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m training.play"))
