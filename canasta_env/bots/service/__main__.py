from .core import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.service"))
