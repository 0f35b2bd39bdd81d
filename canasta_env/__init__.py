"""canasta_env: partnership Canasta for reinforcement learning."""
