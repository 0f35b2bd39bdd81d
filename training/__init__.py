"""Training, evaluation and opponents for canasta_env (needs the ``training`` extra)."""
