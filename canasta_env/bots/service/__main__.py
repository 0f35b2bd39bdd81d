"""``python -m canasta_env.bots.service``: see :mod:`canasta_env.bots.service.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.service"))
