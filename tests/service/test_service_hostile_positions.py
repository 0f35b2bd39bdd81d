"""The bot service stays up under any position a client sends (issue 32).

One unauthenticated ``POST /move`` or ``/turn`` with ``"policy": "search"`` and a position
whose ``turn.new_ranks`` was longer than the C array killed the server process (a heap
overflow in the native core). Here a live server (its own process) gets positions at and
past every capacity of the native core with each built-in policy on both routes: each is
answered with a 4xx and a JSON body that names the field, the server keeps answering,
and a valid position played after them gets the same answer as before them. (A log past
``limits.LOG_MAX`` is over the service's request-body limit, so it is refused as a 413.)
"""

from __future__ import annotations

import copy
import json
import random

import httpx
import pytest

from canasta_env.engine import Game, to_position
from canasta_env.engine import limits as L
from canasta_env.engine.options import preset
from canasta_env.engine.state import Phase
from tests.helpers.service import free_port, start_server, stop

POLICIES = ("heuristic", "random", "reference", "search", "search_reference")
_DEEP = "@deep@"  # replaced by 20,000 nested arrays in the request text (json cannot write it)


def _body(pos: dict, seat: int, policy: str) -> str:
    text = json.dumps({"position": pos, "seat": seat, "policy": policy})
    return text.replace(json.dumps(_DEEP), "[" * 20_000 + "]" * 20_000)


def _meld_position() -> dict:
    """A Classic position in phase MELD with a meld started this turn."""
    rng = random.Random(0)
    g = Game(preset("classic"), seed=3)
    while not (g.phase == Phase.MELD and g.laid and g.new_ranks):
        if g.phase >= Phase.HAND_OVER:
            g = Game(preset("classic"), seed=rng.randrange(10**6))
        else:
            g.apply(rng.choice(g.legal_actions()))
    return to_position(g)


def _hostile(base: dict):
    rank = base["turn"]["new_ranks"][0]

    def w(fn):
        p = copy.deepcopy(base)
        fn(p)
        return p

    yield "turn.new_ranks", w(lambda p: p["turn"].__setitem__("new_ranks", [rank] * 40))
    yield "turn.new_ranks", w(lambda p: p["turn"].__setitem__("new_ranks", [rank] * 16))
    yield "stock", w(lambda p: p.__setitem__("stock", ["4"] * (L.CARD_CAPACITY + 1)))
    yield "pile", w(lambda p: p.__setitem__("pile", ["9"] * 5000))
    yield "turn.pending", w(lambda p: p["turn"].__setitem__("pending",
                                                              ["4"] * (L.CARD_CAPACITY + 1)))
    yield "books[0]", w(lambda p: p.__setitem__(
        "books", [[{"rank": "4", "naturals": 7, "jokers": 0, "twos": 0}] * 200, []]))
    # past the body limit before the reader sees it: 413, naming the limit
    yield "request body of", w(lambda p: p.__setitem__("log", [{"event": "x"}] * (L.LOG_MAX + 1)))
    # the JSON parser of the service refuses it before the reader sees it (400)
    yield "error parsing the body", w(lambda p: p.__setitem__("log", [{"event": "deal", "u": _DEEP}]))
    yield "scores[0]", w(lambda p: p.__setitem__("scores", [2**63, 0]))
    yield "red_three_bonus", w(lambda p: p["options"].__setitem__("red_three_bonus", 10**12))
    yield "opening_minimums", w(lambda p: p["options"].__setitem__(
        "opening_minimums", [[i, 50] for i in range(L.MINIMUMS_CAPACITY + 1)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    proc = start_server(str(tmp_path_factory.mktemp("db") / "games.sqlite3"), port)
    try:
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.mark.parametrize("route", ["/move", "/turn"])
def test_positions_past_every_capacity_are_4xx_and_the_server_stays_up(server, route):
    proc, url = server
    base = _meld_position()
    seat = base["current"]
    with httpx.Client(base_url=url, timeout=120) as c:
        before = {p: c.post(route, json={"position": base, "seat": seat, "policy": p})
                  for p in ("heuristic", "search")}
        for p, r in before.items():
            assert r.status_code == 200, (p, r.text)
        for field, pos in _hostile(base):
            for policy in POLICIES:
                r = c.post(route, content=_body(pos, seat, policy),
                           headers={"content-type": "application/json"})
                assert proc.poll() is None, f"the server died on {field} with {policy}"
                assert 400 <= r.status_code < 500, (field, policy, r.status_code, r.text[:300])
                body = r.json()
                assert field in str(body), (field, policy, body)
        for p, r in before.items():  # the same answer after the barrage
            again = c.post(route, json={"position": base, "seat": seat, "policy": p})
            assert again.status_code == 200 and again.json() == r.json()
    assert proc.poll() is None
