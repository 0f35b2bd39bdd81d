"""The OpenAPI schema is the service's exact contract: every status each route returns is
documented with the one error body, the limits (four seats, the rules' bounds, page sizes,
the position's shape) are in it, a malformed Authorization header is a 401, and
schemathesis (``--checks all``, a bounded number of examples and time) run against a live
server finds nothing.

The schemathesis run lets four operations answer a schema-valid request with a 400, the
documented answer when the request is well formed but the game refuses it: an illegal
action (``POST /games/{id}/actions``), a position that is not reachable under its rules
(``POST /move``, ``POST /turn``), and rules that are each within bounds but do not fit
together (``POST /games``). JSON Schema cannot say which moves are legal."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
httpx = pytest.importorskip("httpx")

from canasta_env.bots.service import MAX_SCORE, create_app  # noqa: E402
from canasta_env.engine.options import OPTION_BOUNDS, RulesOptions  # noqa: E402
from tests.helpers.service import served  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
#: examples per operation and seconds for the whole schemathesis run (CI: 2 busy cores)
EXAMPLES, SECONDS = 8, 120


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    app = create_app("heuristic", db=str(tmp_path_factory.mktemp("db") / "g.sqlite3"))
    yield app
    app.state.service.close()


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def schema(app):
    return app.openapi()


def test_every_route_documents_its_error_statuses_with_the_one_error_body(schema):
    want = {
        ("get", "/"): {"200", "503"},
        ("get", "/api"): {"200", "503"},
        ("post", "/games"): {"201", "400", "413", "422", "503"},
        ("get", "/games/{game_id}"): {"200", "401", "403", "404", "422", "503"},
        ("delete", "/games/{game_id}"): {"200", "401", "404", "422", "503"},
        ("get", "/games/{game_id}/moves"): {"200", "400", "404", "422", "503"},
        ("get", "/games/{game_id}/replay"): {"200", "401", "403", "404", "409", "422", "503"},
        ("post", "/games/{game_id}/actions"): {"200", "400", "401", "403", "404", "409", "413",
                                               "422", "503"},
        ("post", "/games/{game_id}/next_hand"): {"200", "401", "403", "404", "409", "422",
                                                 "503"},
        ("get", "/games/{game_id}/events"): {"200", "400", "401", "403", "404", "422", "429",
                                              "503"},
        ("post", "/move"): {"200", "400", "409", "413", "422"},
        ("post", "/turn"): {"200", "400", "409", "413", "422"},
    }
    for (method, path), statuses in want.items():
        responses = schema["paths"][path][method]["responses"]
        assert set(responses) == statuses, (method, path)
        for status in statuses - {"200", "201"}:
            ref = responses[status]["content"]["application/json"]["schema"]["$ref"]
            assert ref == "#/components/schemas/ErrorBody", (method, path, status)
    body = schema["components"]["schemas"]["ErrorBody"]
    assert body["required"] == ["detail"] and set(body["properties"]) == {"detail", "errors"}
    assert "HTTPValidationError" not in schema["components"]["schemas"]


def test_token_routes_declare_the_token_optional_and_actions_required(schema):
    for method, path in [("get", "/games/{game_id}"), ("get", "/games/{game_id}/replay"),
                         ("post", "/games/{game_id}/next_hand"), ("delete", "/games/{game_id}")]:
        assert schema["paths"][path][method]["security"] == [{"HTTPBearer": []}, {}]
    assert schema["paths"]["/games/{game_id}/actions"]["post"]["security"] == [{"HTTPBearer": []}]


def test_the_limits_are_in_the_schema(schema):
    new_game = schema["components"]["schemas"]["NewGame"]["properties"]
    assert new_game["seats"]["minItems"] == new_game["seats"]["maxItems"] == 4
    assert new_game["seats"]["items"]["enum"] == ["human", "bot"]
    assert new_game["variant"]["enum"] == ["classic", "hand_and_foot"]
    scores = new_game["starting_scores"]["anyOf"][0]
    assert scores["minItems"] == scores["maxItems"] == 2
    assert scores["items"]["minimum"] == -MAX_SCORE and scores["items"]["maximum"] == MAX_SCORE
    rules = new_game["rules"]["anyOf"][0]
    assert rules["additionalProperties"] is False
    names = {f.name for f in dataclasses.fields(RulesOptions)} - {"variant"}
    assert set(rules["properties"]) == names  # every option, each with its bounds
    for name, (lo, hi) in OPTION_BOUNDS.items():
        prop = rules["properties"][name]
        assert prop["type"] == "integer" and prop["minimum"] == lo, name
        assert prop["maximum"] == (MAX_SCORE if name == "target_score" else hi), name
        assert prop["description"] and prop["description"] != name, name
    assert rules["properties"]["foot_size"]["not"] == {"enum": [1, 2]}
    assert "unused in Hand and Foot" in rules["properties"]["target_score"]["description"]
    assert rules["properties"]["black_three_freezes"]["type"] == "boolean"
    limit = {p["name"]: p for p in
             schema["paths"]["/games/{game_id}/moves"]["get"]["parameters"]}["limit"]["schema"]
    assert (limit["minimum"], limit["maximum"]) == (1, 1000)
    position = schema["components"]["schemas"]["PositionRequest"]["properties"]["position"]
    assert {"format", "version", "options", "hands", "stock", "turn"} <= set(position["required"])
    assert position["properties"]["format"]["enum"] == ["canasta_env/position"]
    assert position["properties"]["hands"]["minItems"] == 4
    seat = schema["components"]["schemas"]["Action"]["properties"]["seat"]["anyOf"][0]
    assert (seat["minimum"], seat["maximum"]) == (0, 3)
    # JSON Schema keywords only (pydantic's own "ge" / "le" would be ignored by clients)
    assert not re.search(r'"(ge|le|gt|lt)":', json.dumps(schema))


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Token abc",
                                    "Bearer two words", "bearer"])
def test_a_malformed_authorization_header_is_a_401(client, header):
    game = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 1}).json()
    for method, path in [("GET", f"/games/{game['game_id']}"),
                         ("GET", f"/games/{game['game_id']}/replay"),
                         ("POST", f"/games/{game['game_id']}/next_hand")]:
        r = client.request(method, path, headers={"Authorization": header})
        assert r.status_code == 401, (header, path, r.text)
        assert r.headers["www-authenticate"] == "Bearer"
        assert r.json()["detail"].startswith("malformed Authorization header")
    public = client.get(f"/games/{game['game_id']}")  # no header: the public view
    assert public.status_code == 200 and public.json()["hand"] is None


def test_rules_the_bots_cannot_play_are_a_400(client):
    """Classic rules with Hand and Foot's books (found by schemathesis: the bots' first
    turn was a 500) and Hand and Foot without its meld rules."""
    for variant, rules in [("classic", {"clean_books_to_go_out": 73}),
                           ("hand_and_foot", {"foot_size": 0, "max_meld_size": 0,
                                              "wilds_at_most_half_naturals": False,
                                              "wild_melds": False, "pile_wild_pair": False,
                                              "clean_books_to_go_out": 0,
                                              "dirty_books_to_go_out": 0})]:
        r = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"],
                                        "variant": variant, "rules": rules})
        assert r.status_code == 400 and "the bots cannot play them" in r.json()["detail"], r.text
        r = client.post("/games", json={"seats": ["human"] * 4, "variant": variant,
                                        "rules": rules})
        assert r.status_code == 201, r.text  # people can
        position = client.app.state.service.position(r.json()["game_id"])
        r = client.post("/move", json={"position": position, "seat": position["current"]})
        assert r.status_code == 400 and "the bots cannot play them" in r.json()["detail"], r.text


@pytest.mark.parametrize("body, needle", [
    ({"rules": {"variant": "hand_and_foot"}}, "rules may not set 'variant'"),
    ({"rules": {"natural_canasta_bonus": 10**9}}, "natural_canasta_bonus must be in 0..100,000"),
    ({"rules": {"round_minimums": [1e308]}}, "round_minimums"),
    ({"rules": {"decks": 2.5}}, "decks must be an int"),
    ({"rules": {"decks": True}}, "decks must be an int"),
    ({"starting_scores": [5000, 0]}, "must be below the target_score 5000"),
    ({"starting_scores": [0, 2999], "rules": {"target_score": 2999}}, "below the target_score"),
    ({"seed": 2**63}, "seed must be an int in"),
    # found by schemathesis: a dict as round_minimums and 0 as auto_deal were accepted
    ({"rules": {"round_minimums": {}}}, "round_minimums must be a sequence of ints"),
    # found by schemathesis on a fresh clone: a target_score over the schema's maximum was
    # accepted in Hand and Foot (which does not use it); the schema bounds it in both
    ({"variant": "hand_and_foot", "rules": {"target_score": 7037700}},
     "target_score 7037700 is over this server's limit of 50000"),
    ({"variant": "hand_and_foot", "rules": {"target_score": 0}}, "target_score"),
    ({"variant": "classic", "rules": {"target_score": 50001}},
     "target_score 50001 is over this server's limit of 50000"),
])
def test_bad_rules_and_scores_are_a_400_naming_them(client, app, body, needle):
    n = app.state.service.count()
    r = client.post("/games", json={"seats": ["bot"] * 4, **body})
    assert r.status_code == 400, r.text
    assert needle in r.json()["detail"]
    assert app.state.service.count() == n


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_the_service_bounds_of_rules_hold_in_every_variant(client, app, variant):
    """The options the service bounds more tightly than the engine (one table, read by the
    schema and by the check): ``target_score`` 1..50,000 in both variants, the edge
    accepted, one past it refused."""
    from canasta_env.bots.service.limits import RULES_BOUNDS

    assert RULES_BOUNDS == {"target_score": (1, 50_000)}
    rules = app.openapi()["components"]["schemas"]["NewGame"]["properties"]["rules"]["anyOf"][0]
    for name, (lo, hi) in RULES_BOUNDS.items():
        assert (rules["properties"][name]["minimum"], rules["properties"][name]["maximum"]) \
            == (lo, hi)
        for value, status in ((hi, 201), (hi + 1, 400), (lo, 201), (lo - 1, 400)):
            r = client.post("/games", json={"seats": ["bot"] * 4, "variant": variant,
                                            "rules": {name: value}})
            assert r.status_code == status, (name, value, r.text)
            if value == hi + 1:
                assert f"{name} {value} is over this server's limit of {hi}" in r.json()["detail"]
            elif value == lo - 1:  # the engine's own bound, the same here
                assert name in r.json()["detail"], r.text


def test_auto_deal_is_a_json_boolean_only(client, app):
    """0 was taken as false (pydantic's lax mode); the schema says boolean."""
    n = app.state.service.count()
    for bad in (0, 1, "true"):
        r = client.post("/games", json={"seats": ["bot"] * 4, "auto_deal": bad})
        assert r.status_code == 422, r.text
        assert r.json()["detail"] == ("invalid request: body.auto_deal: Input should be a "
                                      "valid boolean")
    assert app.state.service.count() == n


def test_integral_floats_are_integers_as_json_schema_says(client):
    r = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 7.0,
                                    "starting_scores": [100.0, -20.0], "rules": {"decks": 3.0}})
    assert r.status_code == 201, r.text
    view = r.json()["view"]
    assert view["scores"] == [100, -20]
    for bad in ({"seed": 7.5}, {"seed": "7"}, {"seed": True}, {"starting_scores": [1.5, 0]},
                {"rules": ["decks", 3]}):
        r = client.post("/games", json={"seats": ["bot"] * 4, **bad})
        assert r.status_code == 422, (bad, r.text)


def test_hand_and_foot_has_rounds_and_no_target(client):
    hf = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"],
                                     "variant": "hand_and_foot", "seed": 2}).json()["view"]
    assert hf["target_score"] is None and hf["rounds"] == 4
    classic = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"],
                                          "seed": 2}).json()["view"]
    assert classic["target_score"] == 5000 and classic["rounds"] is None


def test_a_method_not_allowed_lists_every_method_of_the_path(client):
    r = client.put("/games/abc")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, GET"
    assert r.json() == {"detail": "Method Not Allowed"}


# ----------------------------------------------------------------------------- schemathesis
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory)


def test_schemathesis_finds_no_failure_against_a_live_server(server, tmp_path):
    pytest.importorskip("schemathesis", reason="the service extra runs the contract test")
    made = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "bot", "bot"],
                                                "seed": 3}, timeout=60).json()
    game_id, token = made["game_id"], made["tokens"][0]
    # the game's routes get a real game and its seat's token; DELETE gets none (it would
    # forget the game): the stateful phase deletes the games it makes itself
    config = tmp_path / "schemathesis.toml"
    config.write_text(f'''
[[operations]]
include-name = ["GET /games/{{game_id}}", "GET /games/{{game_id}}/moves",
                "GET /games/{{game_id}}/replay", "POST /games/{{game_id}}/actions",
                "POST /games/{{game_id}}/next_hand"]
parameters = {{ "path.game_id" = "{game_id}" }}
headers = {{ "Authorization" = "Bearer {token}" }}

[[operations]]
include-name = ["POST /games", "POST /games/{{game_id}}/actions", "POST /move", "POST /turn"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409"]
''')
    r = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color",
         "run", f"{server}/openapi.json", "--checks", "all", "--max-examples", str(EXAMPLES),
         "--max-time", str(SECONDS), "--seed", "7", "--workers", "1",
         "--generation-database", "none", "--request-timeout", "60",
         # a stream on a game waiting for a human never ends (tests/service/test_service_events)
         "--exclude-path", "/games/{game_id}/events"],
        cwd=tmp_path, capture_output=True, text=True, timeout=SECONDS + 240,
        env=dict(os.environ, SCHEMATHESIS_HOOKS=""))
    tail = r.stdout[-6000:]
    assert r.returncode == 0, tail + r.stderr[-2000:]
    assert "Failures:" not in r.stdout and "Errors:" not in r.stdout, tail
    counted = re.search(r"(\d+) generated, (\d+) passed", r.stdout)
    assert counted and counted[1] == counted[2] and int(counted[1]) > 500, tail
