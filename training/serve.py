"""``python -m training.serve`` (``canasta-serve``): the HTTP JSON service
:func:`canasta_env.bots.service.main`, run with the ``training`` package imported so that
``--policy`` may also name a ``.zip`` checkpoint (importing ``training`` registers the
``.zip`` loader; see :mod:`canasta_env.bots.loader`). Options: ``--help``; endpoints: the
OpenAPI schema of a running server (``/docs``)."""

from canasta_env.bots.service import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m training.serve"))
