"""The benchmark command runs and reports every key (figures are not asserted: speed is
measured by the benchmark itself, never by timed unit tests)."""

import json

from canasta_env.benchmark import main


def test_benchmark_json_has_every_key(capsys):
    assert main(["--seconds", "0.05", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("engine_decisions_per_s", "env_agent_steps_per_s", "raw_env_agent_steps_per_s",
                "engine_hands_per_s", "env_peak_memory_kib",
                "hand_and_foot_engine_decisions_per_s", "hand_and_foot_env_agent_steps_per_s",
                "heuristic_us_per_decision", "hand_and_foot_heuristic_us_per_decision"):
        assert out[key] > 0, key
