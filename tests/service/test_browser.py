"""The card table page (``/`` of the bot service) in a real browser: headless Chromium from
the system package, driven by Playwright for Python. A Classic hand and a Hand and Foot
round are played by clicking the moves the page offers, a finished hand's score sheet is
checked against the service, a game is replayed forward and back (from the service and
from a saved log file), and screenshots are checked.

These tests fail, not skip, without the browser: CI installs it (``.ci/run``).
Install locally with ``apt-get install -y chromium`` and
``PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 pip install playwright`` (never ``playwright install``:
the system Chromium is used).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import time
import zlib
from pathlib import Path

import pytest

from canasta_env.engine import SHEET_ROWS
from tests.helpers.service import served

ROOT = Path(__file__).resolve().parents[2]
#: the system Chromium (Debian's ``chromium`` package); CANASTA_CHROMIUM overrides it
CHROMIUM = os.environ.get("CANASTA_CHROMIUM", "/usr/bin/chromium")
INSTALL = ("install them with: apt-get install -y chromium && "
           "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 pip install playwright "
           "(or pip install -e '.[dev]'); do not run 'playwright install', the system "
           "Chromium is used")
#: clicks one hand may take at most (a human seat makes ~20-60 decisions a hand)
MAX_CLICKS = 400
#: how long the page may take to answer one click (ms)
STEP_MS = 60_000  # a step of the page, bots and the event stream included, on 2 busy cores


def _sync_playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"Playwright for Python is missing: {INSTALL}", pytrace=False)
    return sync_playwright


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _sync_playwright()
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"no Chromium at {CHROMIUM}: {INSTALL}", pytrace=False)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The service as README's serve command runs it, on a free port, heuristic bots."""
    yield from served(tmp_path_factory)


@pytest.fixture
def page(browser, server):
    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 900},
                                  accept_downloads=True)
    p = context.new_page()
    p.set_default_timeout(STEP_MS)
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.goto("/")
    p.wait_for_selector("body[data-ready='1']")
    yield p
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# ----------------------------------------------------------------------------- helpers
def png_facts(path: Path) -> tuple[int, int, int]:
    """(width, height, distinct byte values in the pixel data) of a PNG file, with the
    standard library only (a blank screenshot has very few)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def screenshot(page, path: Path, min_width: int = 800) -> Path:
    page.screenshot(path=str(path), full_page=True)
    width, height, distinct = png_facts(path)
    assert width >= min_width and height >= 400, (path, width, height)
    assert distinct > 50, f"{path} looks blank ({distinct} distinct byte values)"
    assert path.stat().st_size > 20_000, path
    return path


def choose(descriptions: list[str]) -> int:
    """The test player's deterministic rule: draw from the stock, meld, add to melds,
    answer yes, then discard the lowest non-wild card (black 3 first); else the first
    move offered. Returns the index of the chosen move."""
    prefs = [r"^draw from stock$", r"^meld (?!wild)", r"^meld wild", r"^add natural",
             r"^add ", r"^answer yes$", r"^ask partner", r"^finish turn",
             r"^discard black 3$", r"^discard (4|5|6|7|8|9|10|J|Q|K|A)$",
             r"^discard"]
    for pattern in prefs:
        for i, d in enumerate(descriptions):
            if re.search(pattern, d):
                return i
    return 0


def play_hand(page, shots: Path | None = None) -> dict:
    """Clicks the page's offered moves until the hand is over. Returns counts."""
    seen = {"clicks": 0, "drawn": 0, "shot": None}
    for _ in range(MAX_CLICKS):
        page.wait_for_selector("#live-board #hand-over, #live-board button.action:enabled",
                               timeout=STEP_MS)
        if page.locator("#live-board #hand-over").count():
            return seen
        buttons = page.locator("#live-board button.action:enabled")
        descriptions = buttons.evaluate_all("bs => bs.map(b => b.dataset.description)")
        pick = choose(descriptions)
        button = buttons.nth(pick)
        if shots is not None and seen["shot"] is None and seen["clicks"] >= 1 \
                and descriptions[pick].startswith("discard"):
            seen["shot"] = screenshot(page, shots)
        button.click()  # the page is busy from the click until it shows the answer
        seen["clicks"] += 1
        page.wait_for_function("() => !document.body.classList.contains('busy')",
                               timeout=STEP_MS)
        if descriptions[pick] == "draw from stock":
            if page.locator("#drawn .card").count():
                seen["drawn"] += 1
        assert not page.locator("#error").is_visible(), page.locator("#error").text_content()
    raise AssertionError(f"the hand did not end within {MAX_CLICKS} clicks")


def new_game(page, variant: str, seed: int) -> str:
    page.check(f"input[name=variant][value={variant}]")
    page.select_option("#bot-policy", "heuristic")
    page.fill("#seed", str(seed))
    page.click("#new-game")
    page.wait_for_selector("#live-board .my-hand")
    return page.evaluate("() => JSON.parse(localStorage.getItem('canasta_env.games'))[0].id")


def sheet_rows(page, board: str = "#live-board") -> list[str]:
    return page.locator(f"{board} table.sheet tbody tr").evaluate_all(
        "rs => rs.map(r => r.dataset.row)")


# ----------------------------------------------------------------------------- tests
def test_a_classic_hand_by_clicks_then_its_replay(page, server, tmp_path):
    import httpx

    t0 = time.perf_counter()
    game_id = new_game(page, "classic", 9)  # a hand of ~30 clicks
    board = page.locator("#live-board")
    # what the table shows before any move: the variant, dealer, scores, pile, my hand
    assert "Classic Canasta" in board.locator(".board-head").text_content()
    assert "Dealer:" in board.locator(".dealer").text_content()
    assert board.locator("#scores .side").count() == 2
    for side in board.locator("#scores .side").all_text_contents():  # after the bots' turns
        assert re.search(r"opened$|opening minimum 50", side), side
    assert board.locator("#hand .card").count() >= 11
    # the hand is sorted by rank, the wild cards apart
    ranks = board.locator("#hand .group:not(.wild-group) .card").evaluate_all(
        "cs => cs.map(c => c.title)")
    order = ["red 3", "black 3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert ranks == sorted(ranks, key=order.index)
    assert all(c in ("Joker", "2") for c in board.locator("#hand .wild-group .card")
               .evaluate_all("cs => cs.map(c => c.title)"))
    # the pile's cards on demand
    page.click("#show-pile")
    assert page.locator("#pile-cards .card").count() >= 1
    page.click("#show-pile")

    seen = play_hand(page, tmp_path / "classic_mid_hand.png")
    assert seen["clicks"] >= 3 and seen["drawn"] >= 1, seen
    assert seen["shot"] is not None, seen
    # the log in plain words, the score sheet in the score sheet's row order, hands shown
    log = board.locator("#log li").all_text_contents()
    assert any(re.match(r"(West|North|East) (draws from the stock|takes the discard pile)", t)
               for t in log), log[:5]
    assert any(t.startswith("You ") for t in log)
    assert sheet_rows(page) == list(SHEET_ROWS)
    view = httpx.get(f"{server}/games/{game_id}").json()
    mine = [int(t.replace("−", "-").replace(",", "")) for t in
            board.locator("#sheet tr[data-row='total'] td").all_text_contents()]
    assert mine == [view["score_sheets"][0]["total"], view["score_sheets"][1]["total"]]
    assert board.locator("#revealed .revealed-seat").count() == 4
    assert re.search(r"(You|West|North|East|Nobody) went out\.", board.locator("#hand-over").text_content())
    assert page.locator("#next-hand").is_visible()
    screenshot(page, tmp_path / "classic_hand_over.png")

    # the next hand is dealt; then the replay of the game from the list of games
    page.click("#next-hand")
    page.wait_for_selector("#live-board .board-head:has-text('Hand 2')")
    page.click("#home")
    page.locator(f"#my-games tr[data-game='{game_id}'] button.replay").click()
    page.wait_for_selector("#replay-board .board-head")
    assert page.locator("#replay-move").text_content() == "The deal."
    assert page.locator("#replay-back").is_disabled()
    texts = []
    for _ in range(5):
        page.click("#replay-forward")
        texts.append(page.locator("#replay-move").text_content())
    assert all(re.match(r"(You|West|North|East) \w+", t) for t in texts), texts
    assert page.locator("#replay-position").text_content().startswith("move 5 of ")
    page.click("#replay-back")
    assert page.locator("#replay-move").text_content() == texts[3]
    assert page.locator("#replay-log li.last").text_content() == texts[3]
    page.keyboard.press("ArrowRight")
    assert page.locator("#replay-move").text_content() == texts[4]
    # a frame where it was my turn shows the moves I was offered, not clickable
    page.keyboard.press("End")
    page.wait_for_selector("#replay-board .board-head:has-text('Hand 2')")
    # the end of hand 1 in the replay: its score sheet
    moves = httpx.get(f"{server}/games/{game_id}/moves?limit=1000").json()["moves"]
    last_of_hand_1 = max(m["seq"] for m in moves if m["hand_number"] == 0)
    page.fill("#replay-step", str(last_of_hand_1))
    page.dispatch_event("#replay-step", "input")
    page.wait_for_selector("#replay-board #replay-hand-over")
    assert sheet_rows(page, "#replay-board") == list(SHEET_ROWS)
    assert page.locator("#replay-board #replay-revealed .revealed-seat").count() == 4
    screenshot(page, tmp_path / "replay_end_of_hand.png")

    # save the game log, then open the file: the same replay, without the service
    with page.expect_download() as dl:
        page.click("#replay-save")
    saved = tmp_path / "game.json"
    dl.value.save_as(saved)
    doc = json.loads(saved.read_text())
    assert doc["format"] == "canasta_env.replay" and doc["seat"] == 0
    page.click("#home")
    page.set_input_files("#replay-file", str(saved))
    page.wait_for_selector("#replay-board .board-head")
    page.click("#replay-forward")
    assert page.locator("#replay-move").text_content() == texts[0]
    print(f"\nclassic hand: {seen['clicks']} clicks, {time.perf_counter() - t0:.1f} s")


def test_a_hand_and_foot_round_by_clicks(page, tmp_path):
    t0 = time.perf_counter()
    new_game(page, "hand_and_foot", 6)  # ~80 clicks, with asking the partner
    board = page.locator("#live-board")
    assert "Round 1 of 4" in board.locator(".board-head").text_content()
    for side in board.locator("#scores .side").all_text_contents():
        assert re.search(r"opened$|opening minimum 60", side), side
    assert board.locator(".player .foot").count() == 3
    assert "your foot: 11 cards" in board.locator("#hand h3").text_content()
    seen = play_hand(page)
    assert seen["clicks"] >= 3
    assert sheet_rows(page) == list(SHEET_ROWS)
    assert board.locator("#sheet tr[data-row='canasta_bonus'] th").text_content() == "Book bonuses"
    assert "Round 1 is over" in board.locator("#hand-over h2").text_content()
    screenshot(page, tmp_path / "hand_and_foot_round_over.png")
    page.click("#next-hand")
    page.wait_for_selector("#live-board .board-head:has-text('Round 2 of 4')")
    assert "opening minimum 90" in board.locator("#scores").text_content()
    print(f"\nhand and foot round: {seen['clicks']} clicks, {time.perf_counter() - t0:.1f} s")


def test_bad_input_is_refused_clearly(page, server, tmp_path):
    # a file that is not a game log: a clear message, the lobby stays
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "something else", "frames": []}))
    page.set_input_files("#replay-file", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    assert "not a canasta_env game log" in page.locator("#error").text_content()
    assert page.locator("#lobby").is_visible()
    # a log whose frames are not views
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"format": "canasta_env.replay", "moves": [],
                                  "frames": [{"players": [], "melds": [{}, {}], "pile": {}}]}))
    page.set_input_files("#replay-file", str(broken))
    page.wait_for_selector("#error:has-text('malformed frame')")
    assert page.locator("#lobby").is_visible()
    # text from a log file is shown as text, never run as HTML
    import httpx

    body = httpx.post(f"{server}/games", json={"seats": ["bot"] * 4, "seed": 3}).json()
    doc = httpx.get(f"{server}/games/{body['game_id']}/replay").json()
    evil = "<img src=x onerror=alert(1)>"
    doc["game_id"] = evil
    doc["frames"][1]["last_move"]["words"] = evil
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(doc))
    page.set_input_files("#replay-file", str(hostile))
    page.wait_for_selector("#replay-board .board-head")
    page.click("#replay-forward")
    assert evil in page.locator("#replay-move").text_content()
    assert page.locator("img").count() == 0
    # the service refuses hostile requests with clear 4xx answers
    game = body["game_id"]
    for method, path, kw, status in [
            ("GET", f"/games/{game}/replay?seat=9", {}, 422),
            ("GET", f"/games/{game}/replay", {"headers": {"Authorization": "Bearer forged"}}, 401),
            ("GET", "/games/nope/replay", {}, 404),
            ("GET", "/static/../service.py", {}, 404),
            ("GET", "/static/%2e%2e/store.py", {}, 404),
            ("POST", f"/games/{game}/actions", {"json": {"action": "<script>"}}, 401)]:
        r = httpx.request(method, server + path, **kw)
        assert r.status_code == status, (path, r.status_code, r.text)
        assert r.json()["detail"], path
    # a deal number that is not a number is refused before any request
    page.click("#home")
    page.evaluate("() => { const s = document.getElementById('seed'); s.type = 'text'; "
                  "s.value = '12abc'; }")
    page.click("#new-game")
    page.wait_for_selector("#error:not([hidden])")
    assert "whole number" in page.locator("#error").text_content()
