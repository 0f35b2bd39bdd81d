"""The service's load test, for locust (run by :mod:`canasta_env.bots.loadtest`, or
``locust -f canasta_env/bots/locustfile.py --host http://127.0.0.1:8000``).

Each simulated user plays whole games: one human seat (seat 0, its token) against three
heuristic bots, ``auto_deal`` on, a random legal action after a think time of
``LOADTEST_THINK_MIN``..``LOADTEST_THINK_MAX`` seconds (default 0.25..0.75). Every
accepted action (HTTP 200) is appended to the file ``LOADTEST_ACCEPTED`` (if set) as one
JSON line ``{"game_id", "seq", "seat", "action"}``: the driver checks afterwards that
the database holds each of them. After a failed request (e.g. while the server is
restarted) the user waits and reads its game again before going on.
"""

from __future__ import annotations

import json
import os
import random

from locust import FastHttpUser, between, task

THINK = (float(os.environ.get("LOADTEST_THINK_MIN", "0.25")),
         float(os.environ.get("LOADTEST_THINK_MAX", "0.75")))
ACCEPTED = os.environ.get("LOADTEST_ACCEPTED")


class Player(FastHttpUser):
    """One human seat against three heuristic bots, game after game."""

    wait_time = between(*THINK)
    game_id: str | None = None
    token: str | None = None
    view: dict | None = None

    def on_start(self) -> None:
        self.rng = random.Random()
        self.log = open(ACCEPTED, "a", buffering=1) if ACCEPTED else None  # noqa: SIM115

    def on_stop(self) -> None:
        if self.log:
            self.log.close()

    def _new_game(self) -> None:
        with self.client.post("/games", json={"seats": ["human", "bot", "bot", "bot"],
                                              "bot_policy": "heuristic", "auto_deal": True},
                              name="POST /games", catch_response=True) as r:
            if r.status_code != 201:
                r.failure(f"{r.status_code}: {(r.text or r.error or '')!s:.200}")
                return
            body = r.json()
        self.game_id, self.token, self.view = body["game_id"], body["tokens"][0], body["view"]

    def _headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}

    def _refresh(self) -> None:
        with self.client.get(f"/games/{self.game_id}", headers=self._headers(),
                             name="GET /games/{id}", catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"{r.status_code}: {(r.text or r.error or '')!s:.200}")
                self.view = None
                if r.status_code == 404:
                    self.game_id = None
                return
            self.view = r.json()

    @task
    def play(self) -> None:
        if self.game_id is None:
            self._new_game()
            return
        if self.view is None or self.view["status"] == "running":
            self._refresh()
            return
        if self.view["game_over"]:
            self.game_id = None
            return
        if self.view["to_move"] != 0 or not self.view["legal_actions"]:
            self._refresh()
            return
        choice = self.rng.choice(self.view["legal_actions"])
        with self.client.post(f"/games/{self.game_id}/actions", json={"action": choice["action"]},
                              headers=self._headers(), name="POST /games/{id}/actions",
                              catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"{r.status_code}: {(r.text or r.error or '')!s:.200}")
                self.view = None  # read the game again before the next move
                return
            body = r.json()
        self.view = body["view"]
        if self.log:
            seq = self.view["decisions"] - len(body["moves"]) + 1
            self.log.write(json.dumps({"game_id": self.game_id, "seq": seq, "seat": 0,
                                       "action": choice["action"]}) + "\n")
