"""The card table in Chromium (system package, Playwright; never ``playwright install``): live
updates from the game's event stream instead of polling, and the table as a card player reads
it (issue 35, item 5). Each check looks at the rendered page; screenshots are written to the
test's directory and checked for content.

- two humans in two browser contexts see each other's moves within a second;
- your own red 3s beside your hand; melds never clipped (every card's rank readable, the
  wild cards counted); the card just drawn and the pile's top card look different, and the
  drawn mark survives a reload (from the view); red and black 3s look different; a Hand and
  Foot header shows the rounds, not a target; a favicon.
"""

from __future__ import annotations

import time

import pytest

httpx = pytest.importorskip("httpx")

from canasta_env.engine import Game, preset  # noqa: E402
from tests.helpers.service import served  # noqa: E402
from tests.service.test_browser import STEP_MS, browser, screenshot  # noqa: E402,F401 - the browser fixture


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory)


@pytest.fixture
def context_page(browser, server):  # noqa: F811
    """``open(address)``: a new browser context's page at ``address`` (checked for
    JavaScript errors at the end)."""
    contexts, errors = [], []

    def open_page(address: str = "/"):
        context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 900})
        contexts.append(context)
        p = context.new_page()
        p.set_default_timeout(STEP_MS)
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.goto(address)
        p.wait_for_selector("body[data-ready='1']")
        return p

    yield open_page
    for c in contexts:
        c.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _game(server: str, seats: list[str], seed: int, variant: str = "classic") -> dict:
    r = httpx.post(f"{server}/games", json={"seats": seats, "seed": seed, "variant": variant,
                                            "bot_policy": "heuristic"})
    assert r.status_code == 201, r.text
    return r.json()


def _wait_idle(page) -> None:
    page.wait_for_function("() => !document.body.classList.contains('busy')", timeout=STEP_MS)


# ---------------------------------------------------------------------- live updates
def test_two_humans_see_each_others_moves_within_a_second(context_page, server, tmp_path):
    game = _game(server, ["human", "bot", "human", "bot"], seed=3)
    gid, tokens = game["game_id"], game["tokens"]
    first = game["view"]["to_move"]  # seed 3: seat 2 is first to move
    assert first == 2
    pages = {s: context_page(f"/#game={gid}&token={tokens[s]}") for s in (0, 2)}
    for p in pages.values():
        p.wait_for_selector("#live-board .my-hand")
        p.wait_for_selector("body[data-live='1']")  # the stream is open
        assert p.evaluate("() => location.hash") == f"#game={gid}"  # the token left the address
    mover, watcher = pages[2], pages[0]
    for step in range(3):  # the draw, then two more of seat 2's moves (a meld or the discard)
        before = watcher.locator("#log li").count()
        button = mover.locator("#live-board button.action:enabled")
        descriptions = button.evaluate_all("bs => bs.map(b => b.dataset.description)")
        pick = 0 if step == 0 else next(
            (i for i, d in enumerate(descriptions) if d.startswith("discard")), 0)
        mover.locator("#live-board button.action:enabled").nth(pick).click()
        _wait_idle(mover)
        t0 = time.perf_counter()
        watcher.wait_for_function(f"() => document.querySelectorAll('#log li').length > {before}",
                                  timeout=5000)
        delay = time.perf_counter() - t0
        assert delay < 1.0, f"the other browser showed the move after {delay:.2f} s"
        said = watcher.locator("#log li").nth(before).text_content()
        assert said.startswith("North "), said  # seat 2 is seat 0's partner, North
        if step == 0:
            assert said == "North draws from the stock"
            # seat 0 never sees North's drawn cards; North sees its own, marked
            assert watcher.locator(".card.drawn").count() == 0
            assert mover.locator("#hand .card.drawn").count() >= 1
        if descriptions[pick].startswith("discard"):
            break
    screenshot(watcher, tmp_path / "two_humans_watcher.png")
    screenshot(mover, tmp_path / "two_humans_mover.png")
    # the page is not polling: no GET of the view without an event in between
    got = []
    watcher.on("request", lambda r: got.append(r.url) if "/games/" in r.url else None)
    watcher.wait_for_timeout(1500)
    assert [u for u in got if not u.endswith("/events")] == [], got


# ---------------------------------------------------------------------- the table
def test_my_red_threes_beside_my_hand(context_page, server, tmp_path):
    seed = next(s for s in range(200) if Game(preset("classic"), seed=s).red3[0])
    game = _game(server, ["human", "bot", "bot", "bot"], seed=seed)
    n = game["view"]["players"][0]["red_threes"]
    assert n >= 1
    p = context_page(f"/#game={game['game_id']}&token={game['tokens'][0]}")
    box = p.locator("#hand #my-red3s")
    assert box.locator(".card.red3").count() == n
    assert "red 3s laid out" in box.text_content()
    hand = p.locator("#hand").bounding_box()
    red = box.bounding_box()
    assert hand["y"] <= red["y"] and red["y"] + red["height"] <= hand["y"] + hand["height"]
    screenshot(p, tmp_path / "my_red_threes.png")


def test_melds_are_never_clipped_and_count_wild_cards(context_page, server, tmp_path):
    game = _game(server, ["bot"] * 4, seed=1)  # the bots play the first hand to its end
    gid = game["game_id"]
    view = httpx.get(f"{server}/games/{gid}").json()
    assert view["hand_over"]
    longest = max(m["cards"] for side in view["melds"] for m in side.values())
    assert longest >= 7
    p = context_page(f"/#game={gid}")  # watched: the public view
    p.wait_for_selector("#live-board .meld")
    # every card of every meld inside its box with its rank label visible (not under
    # the next card, not cut off): the point at the label's centre hits the label
    hidden = p.evaluate("""() => {
      const bad = [];
      for (const meld of document.querySelectorAll('#live-board .meld')) {
        meld.scrollIntoView({block: 'center'});  // elementFromPoint sees the viewport only
        const box = meld.querySelector('.meld-cards').getBoundingClientRect();
        for (const card of meld.querySelectorAll('.meld-cards .card')) {
          const r = card.getBoundingClientRect();
          const label = card.querySelector('.rank').getBoundingClientRect();
          const x = label.left + label.width / 2, y = label.top + label.height / 2;
          const hit = document.elementFromPoint(x, y);
          if (r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1
              || !(hit && card.contains(hit))) bad.push(meld.dataset.rank + ':' + card.title);
        }
      }
      return bad;
    }""")
    p.evaluate("() => window.scrollTo(0, 0)")
    screenshot(p, tmp_path / "long_melds.png")
    assert hidden == [], f"meld cards clipped or covered: {hidden}"
    for side in range(2):
        for rank, m in view["melds"][side].items():
            meld = p.locator(f"#melds{side} .meld[data-rank='{rank}']")
            assert meld.locator(".meld-cards .card").count() == m["cards"]
            wild = m["jokers"] + m["twos"]
            label = meld.locator(".meld-state").text_content()
            assert f"{m['cards']} cards" in label
            assert (f"{wild} wild" in label) == (wild > 0), label


def test_drawn_card_and_pile_top_differ_and_the_mark_survives_a_reload(context_page, server,
                                                                      tmp_path):
    game = _game(server, ["human", "bot", "bot", "bot"], seed=26)  # seat 0 first to move
    assert game["view"]["to_move"] == 0
    p = context_page(f"/#game={game['game_id']}&token={game['tokens'][0]}")
    p.click("#live-board button.action[data-description='draw from stock']")
    _wait_idle(p)
    drawn = p.locator("#hand .card.drawn")
    view = httpx.get(f"{server}/games/{game['game_id']}",
                     headers={"Authorization": f"Bearer {game['tokens'][0]}"}).json()
    expected = [c for c in view["drawn"] if c != "red 3"]
    assert sorted(drawn.evaluate_all("cs => cs.map(c => c.title)")) == sorted(expected)
    top = p.locator("#pile .card.top")
    assert top.locator(".caption").text_content() == "top"
    assert drawn.first.locator(".caption").text_content() == "drawn"
    style = "c => { const s = getComputedStyle(c); return [s.outlineColor, s.backgroundColor]; }"
    top_style, drawn_style = top.evaluate(style), drawn.first.evaluate(style)
    assert top_style[0] != drawn_style[0] and top_style[1] != drawn_style[1], \
        (top_style, drawn_style)
    screenshot(p, tmp_path / "drawn_and_top.png")
    p.reload()
    p.wait_for_selector("body[data-ready='1']")
    p.wait_for_selector("#live-board .my-hand")  # back at the table after the reload
    assert sorted(p.locator("#hand .card.drawn").evaluate_all("cs => cs.map(c => c.title)")) \
        == sorted(expected)
    assert p.locator("#drawn").is_visible()
    screenshot(p, tmp_path / "drawn_after_reload.png")


def test_red_and_black_threes_look_different(context_page, tmp_path):
    p = context_page("/")
    facts = p.evaluate("""() => {
      const box = document.createElement('div');
      box.id = 'threes';
      box.style.padding = '1rem';
      for (const extra of ['', 'small']) for (const c of ['red 3', 'black 3'])
        box.append(cardEl(c, extra));
      document.querySelector('main').prepend(box);
      return [...box.children].map(n => { const s = getComputedStyle(n);
        return [n.title, n.textContent, s.color, s.backgroundColor]; });
    }""")
    red, black = facts[0], facts[1]
    assert red[0] == "red 3" and black[0] == "black 3"
    assert red[1] != black[1]  # different labels, not both "3"
    assert red[2] != black[2] and red[3] != black[3]  # different ink and card colour
    assert facts[2][1:] == red[1:] and facts[3][1:] == black[1:]  # the small cards too
    screenshot(p, tmp_path / "threes.png")


def test_hand_and_foot_header_shows_rounds_not_a_target(context_page, server, tmp_path):
    hf = _game(server, ["human", "bot", "bot", "bot"], seed=4, variant="hand_and_foot")
    p = context_page(f"/#game={hf['game_id']}&token={hf['tokens'][0]}")
    head = p.locator("#head").text_content()
    assert "Round 1 of 4" in head and "Target" not in head, head
    screenshot(p, tmp_path / "hand_and_foot_header.png")
    classic = _game(server, ["human", "bot", "bot", "bot"], seed=4)
    q = context_page(f"/#game={classic['game_id']}&token={classic['tokens'][0]}")
    head = q.locator("#head").text_content()
    assert "Hand 1" in head and "Target 5,000" in head, head


def test_favicon(context_page, server):
    p = context_page("/")
    href = p.evaluate("() => document.querySelector('link[rel=icon]').href")
    r = httpx.get(href)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<svg") and "</svg>" in r.text
    # the browser shows it: the page's icon loads without an error
    ok = p.evaluate("""async () => { const img = new Image(); img.src = document.querySelector(
      'link[rel=icon]').href; await img.decode(); return img.naturalWidth > 0; }""")
    assert ok


def test_the_lobby_invites_a_partner_who_plays_live(context_page, server, tmp_path):
    host = context_page("/")
    host.select_option("#seat-north", "human")
    host.select_option("#bot-policy", "heuristic")
    host.fill("#seed", "3")  # seat 2 (North) is first to move
    host.click("#new-game")
    host.wait_for_selector("#live-board .my-hand")
    links = host.locator("#invites input").evaluate_all("xs => xs.map(x => x.value)")
    assert len(links) == 1 and "#game=" in links[0] and "&token=" in links[0]
    assert host.locator("#invites .invite strong").text_content() == "North: "
    screenshot(host, tmp_path / "invitation.png")
    guest = context_page(links[0].split(server, 1)[1])
    guest.wait_for_selector("#live-board .my-hand")
    guest.wait_for_selector("body[data-live='1']")
    host.wait_for_selector("body[data-live='1']")
    assert guest.locator("#status").text_content() == "your move"
    assert host.locator("#status").text_content() == "North to move"
    before = host.locator("#log li").count()
    guest.click("#live-board button.action[data-description='draw from stock']")
    _wait_idle(guest)
    t0 = time.perf_counter()
    host.wait_for_function(f"() => document.querySelectorAll('#log li').length > {before}",
                           timeout=5000)
    assert time.perf_counter() - t0 < 1.0
    assert host.locator("#log li").nth(before).text_content() == "North draws from the stock"
    assert guest.locator("#log li").nth(before).text_content() == "You draw from the stock"
    assert guest.locator("#invites").count() == 0  # the links are the host's to send
