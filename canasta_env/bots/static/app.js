// The canasta_env card table: plays the bot service through its public HTTP API with one
// seat token, and replays finished games. Plain DOM, no build step. Every text from the
// server or from a log file goes in with textContent, never as HTML.
"use strict";

const RANKS = ["Joker", "2", "red 3", "black 3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const WILD = new Set(["Joker", "2"]);
const ROW_LABELS = {
  table: "Cards on the table",
  canasta_bonus: "Canasta bonuses",
  red_threes: "Red 3s",
  going_out: "Going out",
  hand_penalty: "Cards left in hands",
  hand_score: "Score of the hand",
  previous: "Previous total",
  total: "New total",
};
const STORE_KEY = "canasta_env.games";

const state = {
  game: null,      // {id, token, variant, seat}
  view: null,      // the seat's view (its "drawn": the cards the seat drew this turn)
  busy: false,
  showPile: false,
  replay: null,    // {doc, step}
};

// ------------------------------------------------------------------ small helpers
function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function rankIndex(card) {
  const i = RANKS.indexOf(card);
  return i < 0 ? RANKS.length : i;
}

function sortCards(cards) {
  return [...cards].sort((a, b) => rankIndex(a) - rankIndex(b));
}

function cardClass(card) {
  if (card === "Joker") return "card joker";
  if (card === "2") return "card wild";
  if (card === "red 3") return "card red3";
  if (card === "black 3") return "card black3";
  return "card";
}

// red 3s and black 3s: a red 3 with a heart on white, a black 3 with a spade on black
const LABELS = {"Joker": "Joker", "red 3": "3♥", "black 3": "3♠"};

function cardEl(card, extra, caption) {
  const node = el("span", {class: cardClass(card) + (extra ? " " + extra : ""), title: card},
    el("span", {class: "rank", text: LABELS[card] || card}));
  if (caption) node.append(el("span", {class: "caption", text: caption}));
  return node;
}

function fmt(n) {
  return (n < 0 ? "−" : "") + Math.abs(n).toLocaleString("en-US");
}

function setStatus(text) { $("status").textContent = text || ""; }

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
}

function show(section) {
  for (const id of ["lobby", "table", "replay"]) $(id).hidden = id !== section;
  if (section !== "table") {
    stopFollowing();  // the table's live updates end with it
    if (location.hash) history.replaceState(null, "", location.pathname);
  }
}

// ------------------------------------------------------------------ the API
async function api(method, path, body, token) {
  const headers = {"Accept": "application/json"};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  let res;
  try {
    res = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (e) {
    throw new Error("the service does not answer (" + e.message + ")");
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const detail = data && data.detail ? data.detail : res.statusText;
    throw new Error(res.status + ": " + (typeof detail === "string" ? detail : JSON.stringify(detail)));
  }
  return data;
}

// ------------------------------------------------------------------ games kept in this browser
function myGames() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE_KEY) || "[]");
    return Array.isArray(list) ? list.filter(g => g && typeof g.id === "string") : [];
  } catch (e) { return []; }
}

function saveGames(list) { localStorage.setItem(STORE_KEY, JSON.stringify(list.slice(0, 50))); }

function rememberGame(game, extra) {
  const list = myGames().filter(g => g.id !== game.id);
  const old = myGames().find(g => g.id === game.id) || {};
  list.unshift({...old, ...game, ...extra});
  saveGames(list);
}

function forgetGame(id) { saveGames(myGames().filter(g => g.id !== id)); }

function renderGameList() {
  const body = $("my-games").querySelector("tbody");
  body.replaceChildren();
  const list = myGames();
  $("no-games").hidden = list.length > 0;
  for (const g of list) {
    const variant = g.variant === "hand_and_foot" ? "Hand and Foot" : "Classic";
    const when = g.created ? new Date(g.created).toLocaleString() : "";
    body.append(el("tr", {"data-game": g.id},
      el("td", {text: variant}),
      el("td", {class: "muted", text: when}),
      el("td", {text: g.summary || ""}),
      el("td", {},
        el("button", {type: "button", class: "continue", text: g.over ? "Look" : "Continue",
                      onclick: () => openGame(g)}),
        el("button", {type: "button", class: "replay", text: "Replay",
                      onclick: () => openReplay(g)}),
        el("button", {type: "button", class: "forget", text: "Forget",
                      onclick: () => { forgetGame(g.id); renderGameList(); }}))));
  }
}

// ------------------------------------------------------------------ names of seats
function seatNames(view) {
  const me = view.seat === null || view.seat === undefined ? 0 : view.seat;
  const mine = view.seat !== null && view.seat !== undefined;
  const names = {};
  names[me] = mine ? "You" : "Seat " + me;
  names[(me + 1) % 4] = mine ? "West" : "Seat " + ((me + 1) % 4);
  names[(me + 2) % 4] = mine ? "North" : "Seat " + ((me + 2) % 4);
  names[(me + 3) % 4] = mine ? "East" : "Seat " + ((me + 3) % 4);
  return names;
}

function sideName(view, p) {
  const mine = view.seat !== null && view.seat !== undefined;
  if (!mine) return p === 0 ? "Seats 0 + 2" : "Seats 1 + 3";
  return p === view.seat % 2 ? "We (You + North)" : "They (West + East)";
}

function sentence(names, move) {
  const who = names[move.seat];
  let words = move.words || move.description;
  if (who === "You") words = words.replace(/^(\w+)s\b/, "$1");  // "draws" -> "draw"
  return who + " " + words;
}

// ------------------------------------------------------------------ the board
function renderBoard(root, view, opts) {
  const names = seatNames(view);
  const me = view.seat === null || view.seat === undefined ? 0 : view.seat;
  const hf = view.hand_and_foot;
  const variant = view.variant === "hand_and_foot" ? "Hand and Foot" : "Classic Canasta";
  const toMove = view.to_move;

  root.replaceChildren();
  root.dataset.variant = view.variant;
  root.dataset.phase = view.phase;

  // scores and opening minimums
  const scoreBox = el("div", {class: "scores", id: opts.prefix + "scores"});
  for (const p of [me % 2, 1 - (me % 2)]) {
    const opened = view.opened[p];
    const onTurn = view.current % 2 === p && !view.hand_over;
    let opening;
    if (opened) opening = el("span", {class: "badge ok", text: "opened"});
    else {
      const pts = onTurn ? view.turn.opening_points : 0;
      opening = el("span", {class: "opening" + (pts ? " progress" : "")},
        "opening minimum " + fmt(view.opening_minimum[p]) + (pts ? ": " + fmt(pts) + " so far this turn" : ""));
      if (onTurn && view.turn.pile_set_aside)
        opening.append(" (pile of " + view.turn.pile_set_aside + " set aside until it is met)");
    }
    scoreBox.append(el("div", {class: "side side" + p, "data-side": p},
      el("strong", {text: sideName(view, p)}), " ",
      el("span", {class: "score", text: fmt(view.scores[p])}), " ", opening));
  }
  const rounds = hf && hf.rounds ? hf.rounds : 4;
  const round = hf ? "Round " + (view.hand_number + 1) + " of " + rounds : "Hand " + (view.hand_number + 1);
  const head = el("div", {class: "board-head", id: opts.prefix + "head"},
    el("span", {class: "variant", text: variant}),
    el("span", {class: "round", text: round}),
    el("span", {class: "dealer", text: "Dealer: " + names[view.dealer]}),
    // Hand and Foot is played for a number of rounds, not to a target score
    hf ? null : el("span", {class: "target", text: "Target " + fmt(view.target_score)}));

  // the other three players around the table
  const seatBox = (s, where) => {
    const pl = view.players[s];
    const box = el("div", {class: "player " + where + (toMove === s ? " to-move" : ""), "data-seat": s},
      el("div", {class: "name"}, names[s], s === view.dealer ? el("span", {class: "badge", text: "dealer"}) : null,
        toMove === s ? el("span", {class: "badge turn", text: "to move"}) : null),
      el("div", {class: "count", text: pl.hand_size + (pl.hand_size === 1 ? " card" : " cards") + " in hand"}));
    if (hf) {
      box.append(el("div", {class: "foot", text: hf.in_foot[s] ? "playing from the foot"
        : "foot: " + hf.foot_sizes[s] + " cards face down"}));
    }
    if (pl.red_threes) {
      box.append(el("div", {class: "red3s"}, "red 3s: ",
        Array.from({length: pl.red_threes}, () => cardEl("red 3", "small"))));
    }
    if (pl.known_cards && pl.known_cards.length && s !== view.seat) {
      box.append(el("div", {class: "known"}, "known to hold: ", sortCards(pl.known_cards).map(c => cardEl(c, "small"))));
    }
    return box;
  };

  // the middle: stock and pile
  const pile = view.pile;
  const pileBox = el("div", {class: "pile", id: opts.prefix + "pile"},
    el("div", {class: "stock"}, el("span", {class: "card back"}, el("span", {class: "rank", text: String(view.stock_size)})),
      el("div", {class: "label", text: "stock"})),
    el("div", {class: "discard"},
      pile.top ? cardEl(pile.top, "top", "top") : el("span", {class: "card empty"}, el("span", {class: "rank", text: "—"})),
      el("div", {class: "label", text: "pile: " + pile.size + (pile.size === 1 ? " card" : " cards")}),
      pile.frozen ? el("span", {class: "badge frozen", text: "frozen"}) : null,
      !pile.frozen && pile.frozen_for[me % 2] && view.seat !== null ? el("span", {class: "badge frozen",
        text: "frozen for us until we open"}) : null,
      pile.stop_card ? el("span", {class: "badge stop", text: "stop: black 3 on top"}) : null));
  if (pile.size > 0) {
    const btn = el("button", {type: "button", class: "link", id: opts.prefix + "show-pile",
      text: state.showPile ? "hide the pile's cards" : "show the pile's cards",
      onclick: () => { state.showPile = !state.showPile; opts.rerender(); }});
    pileBox.append(btn);
    if (state.showPile) {
      pileBox.append(el("div", {class: "pile-cards", id: opts.prefix + "pile-cards"},
        pile.cards.map(c => cardEl(c, "small"))));
    }
  }
  if (pile.set_aside && pile.set_aside.length) {
    pileBox.append(el("div", {class: "set-aside"}, "set aside for an opening: ",
      pile.set_aside.map(c => cardEl(c, "small"))));
  }

  // melds of both sides
  const meldsOf = p => {
    const box = el("div", {class: "melds side" + p, "data-side": p, id: opts.prefix + "melds" + p},
      el("h3", {text: sideName(view, p) + " — melds"}));
    const ranks = Object.keys(view.melds[p]).sort((a, b) => rankIndex(a) - rankIndex(b));
    if (!ranks.length && !(hf && hf.books[p].length)) box.append(el("p", {class: "muted", text: "none yet"}));
    for (const r of ranks) {
      const m = view.melds[p][r];
      const cards = [];
      for (let i = 0; i < m.naturals; i++) cards.push(cardEl(r === "black 3" ? "black 3" : r, "small"));
      for (let i = 0; i < m.jokers; i++) cards.push(cardEl("Joker", "small"));
      for (let i = 0; i < m.twos; i++) cards.push(cardEl("2", "small"));
      const wild = m.jokers + m.twos;
      const label = (m.canasta === "natural" ? "natural canasta" : m.canasta === "mixed" ? "mixed canasta"
        : wild ? "mixed" : "natural") + ": " + m.cards + " cards" + (wild ? ", " + wild + " wild" : "");
      box.append(el("div", {class: "meld" + (m.canasta ? " canasta " + m.canasta : ""), "data-rank": r,
                            "data-cards": m.cards, "data-wild": wild},
        el("span", {class: "meld-rank", text: r}), el("span", {class: "meld-cards"}, cards),
        el("span", {class: "meld-state", text: label})));
    }
    if (hf) {
      const wm = hf.wild_melds[p];
      if (wm.jokers + wm.twos) {
        box.append(el("div", {class: "meld wild"}, el("span", {class: "meld-rank", text: "wild"}),
          el("span", {class: "meld-cards"}, Array.from({length: wm.jokers}, () => cardEl("Joker", "small")),
            Array.from({length: wm.twos}, () => cardEl("2", "small"))),
          el("span", {class: "meld-state", text: (wm.jokers + wm.twos) + " wild cards"})));
      }
      const books = hf.books[p];
      if (books.length) {
        box.append(el("div", {class: "books"}, el("strong", {text: "Books: "}),
          books.map(b => el("span", {class: "book " + (b.jokers + b.twos ? "dirty" : "clean"),
            title: b.naturals + " naturals, " + b.jokers + " Jokers, " + b.twos + " 2s",
            text: b.rank + (b.rank === "wild" ? "" : b.jokers + b.twos ? " dirty" : " clean")}))));
      }
    }
    return box;
  };

  // my hand, by rank, wild cards apart
  const handBox = el("div", {class: "my-hand", id: opts.prefix + "hand"});
  if (view.hand) {
    const hand = sortCards(view.hand);
    const wild = hand.filter(c => WILD.has(c));
    const natural = hand.filter(c => !WILD.has(c));
    const drawn = (opts.drawn || []).filter(c => c !== "red 3");
    const mark = c => { const i = drawn.indexOf(c); if (i >= 0) { drawn.splice(i, 1); return true; } return false; };
    const handCard = c => mark(c) ? cardEl(c, "drawn", "drawn") : cardEl(c);
    handBox.append(el("h3", {}, "Your hand (" + view.hand.length + ")",
      hf ? el("span", {class: "muted", text: hf.in_foot[me] ? " — playing from your foot"
        : " — your foot: " + hf.foot_sizes[me] + " cards"}) : null));
    const red3s = view.players[me].red_threes;
    handBox.append(el("div", {class: "cards"},
      el("span", {class: "group wild-group"}, wild.map(handCard)),
      el("span", {class: "group"}, natural.map(handCard)),
      // the red 3s laid out in front of me (they score, they are not in the hand)
      red3s ? el("span", {class: "red3-group", id: opts.prefix + "my-red3s",
                          title: red3s + (red3s === 1 ? " red 3" : " red 3s") + " laid out"},
        el("span", {class: "group-label", text: "red 3s laid out"}),
        Array.from({length: red3s}, () => cardEl("red 3"))) : null));
    if (opts.drawn && opts.drawn.length) {
      handBox.append(el("p", {class: "drawn-note", id: opts.prefix + "drawn"},
        "You drew: ", opts.drawn.map(c => cardEl(c, "small"))));
    }
  }

  // the legal moves as buttons (the API's legal_actions drives what is clickable)
  const actionsBox = el("div", {class: "actions", id: opts.prefix + "actions"});
  if (view.legal_actions && view.legal_actions.length) {
    const groups = [["Draw", /^(draw|take|decline)/], ["Meld", /^meld/], ["Add to a meld", /^add/],
      ["Discard", /^discard/], ["Other", /./]];
    actionsBox.append(el("h3", {text: opts.interactive ? "Your move" : "Moves offered"}));
    const used = new Set();
    for (const [title, re] of groups) {
      const acts = view.legal_actions.filter(a => !used.has(a.action) && re.test(a.description));
      if (!acts.length) continue;
      acts.forEach(a => used.add(a.action));
      actionsBox.append(el("div", {class: "action-group"}, el("span", {class: "group-title", text: title}),
        acts.map(a => el("button", {type: "button", class: "action", "data-action": a.action,
          "data-description": a.description, disabled: !opts.interactive || state.busy,
          text: a.description, onclick: () => opts.onAction(a.action)}))));
    }
  } else if (!view.hand_over && toMove !== null && toMove !== undefined && view.seat !== null) {
    actionsBox.append(el("p", {class: "muted", text: names[toMove] + (names[toMove] === "You" ? " are" : " is") + " to move…"}));
  }

  // the log of this hand in plain words
  const logBox = el("div", {class: "log", id: opts.prefix + "log"}, el("h3", {text: "This hand"}));
  const list = el("ol", {});
  for (const m of opts.moves) {
    list.append(el("li", {class: (m.seat === view.seat ? "mine" : "") + (m === opts.lastMove ? " last" : "")},
      sentence(names, m)));
  }
  logBox.append(list);

  // the end of a hand: score sheet, hands revealed, next hand
  let endBox = null;
  if (view.hand_over && view.score_sheets) {
    endBox = el("div", {class: "hand-over", id: opts.prefix + "hand-over"});
    const went = view.went_out === null || view.went_out === undefined ? "Nobody went out."
      : names[view.went_out] + (names[view.went_out] === "You" ? " went out." : " went out.");
    endBox.append(el("h2", {text: (hf ? "Round " : "Hand ") + (view.hand_number + 1) + " is over"}),
      el("p", {text: went}));
    const sides = [me % 2, 1 - (me % 2)];
    const table = el("table", {class: "sheet", id: opts.prefix + "sheet"},
      el("thead", {}, el("tr", {}, el("th", {text: ""}), sides.map(p => el("th", {text: sideName(view, p)})))));
    const tb = el("tbody", {});
    for (const row of view.sheet_rows) {
      let label = ROW_LABELS[row] || row;
      if (hf && row === "canasta_bonus") label = "Book bonuses";
      tb.append(el("tr", {"data-row": row, class: row === "total" || row === "hand_score" ? "sum" : ""},
        el("th", {text: label}), sides.map(p => el("td", {text: fmt(view.score_sheets[p][row])}))));
    }
    table.append(tb);
    endBox.append(table);
    if (view.revealed) {
      const rev = el("div", {class: "revealed", id: opts.prefix + "revealed"}, el("h3", {text: "Cards left"}));
      for (let s = 0; s < 4; s++) {
        const seat = (me + s) % 4;
        const hand = view.revealed.hands[seat];
        const foot = view.revealed.feet ? view.revealed.feet[seat] : [];
        rev.append(el("div", {class: "revealed-seat", "data-seat": seat}, el("strong", {text: names[seat] + ": "}),
          hand.length ? sortCards(hand).map(c => cardEl(c, "small")) : el("span", {class: "muted", text: "no cards"}),
          foot && foot.length ? el("span", {class: "muted", text: " foot: "}) : null,
          foot && foot.length ? sortCards(foot).map(c => cardEl(c, "small")) : null));
      }
      endBox.append(rev);
    }
    if (view.game_over) {
      const w = view.winner;
      const text = w === -1 ? "The game is a draw." : w === null || w === undefined ? "The game is over."
        : sideName(view, w) + (view.seat !== null && w === me % 2 ? " win the game!" : " win the game.");
      endBox.append(el("p", {class: "game-over", id: opts.prefix + "game-over", text: "Game over: " + text}));
    }
    if (opts.interactive) {
      const buttons = el("div", {class: "end-buttons"});
      if (!view.game_over) {
        buttons.append(el("button", {type: "button", class: "primary", id: "next-hand", disabled: state.busy,
          text: hf ? "Deal the next round" : "Deal the next hand", onclick: () => nextHand()}));
      } else {
        buttons.append(el("button", {type: "button", class: "primary", id: "again", text: "New game",
          onclick: () => { show("lobby"); renderGameList(); }}));
      }
      buttons.append(el("button", {type: "button", id: "replay-this", text: "Replay this game",
        onclick: () => openReplay(state.game)}));
      endBox.append(buttons);
    }
  }

  // earlier hands
  let history = null;
  if (view.history && view.history.length) {
    history = el("details", {class: "history"}, el("summary", {text: "Finished " + (hf ? "rounds" : "hands") + " (" + view.history.length + ")"}));
    const t = el("table", {class: "sheet"});
    t.append(el("tr", {}, el("th", {text: hf ? "round" : "hand"}), [me % 2, 1 - (me % 2)].map(p => el("th", {text: sideName(view, p)}))));
    for (const h of view.history) {
      t.append(el("tr", {}, el("td", {text: String(h.hand + 1)}), [me % 2, 1 - (me % 2)].map(p =>
        el("td", {text: fmt(h.sheets[p].hand_score) + " → " + fmt(h.sheets[p].total)}))));
    }
    history.append(t);
  }

  let invites = null;
  if (opts.interactive && state.game && state.game.invites && state.game.invites.length) {
    invites = el("details", {class: "invites", id: "invites", open: view.decisions === 0 || null},
      el("summary", {text: "Invitations: a link for each person's seat"}),
      state.game.invites.map(inv => el("p", {class: "invite", "data-seat": inv.seat},
        el("strong", {text: names[inv.seat] + ": "}),
        el("input", {type: "text", readonly: true, value: inv.link, size: 60,
                     onfocus: e => e.target.select()}))));
  }
  root.append(...[
    invites,
    el("div", {class: "top-row"}, head, scoreBox),
    el("div", {class: "felt"},
      seatBox((me + 2) % 4, "north"),
      seatBox((me + 1) % 4, "west"),
      el("div", {class: "centre"}, pileBox, el("div", {class: "meld-area"}, meldsOf(1 - (me % 2)), meldsOf(me % 2))),
      seatBox((me + 3) % 4, "east"),
      view.hand ? null : seatBox(me, "south")),
    endBox,
    el("div", {class: "bottom-row"}, el("div", {class: "mine-col"}, handBox, actionsBox), logBox),
    history].filter(Boolean));
  const last = list.querySelector("li.last") || list.lastElementChild;  // the latest move in sight
  if (last) list.scrollTop = last.offsetTop - list.clientHeight + last.offsetHeight + 8;
}

// ------------------------------------------------------------------ playing
function renderLive() {
  const v = state.view;
  if (!v) return;
  renderBoard($("live-board"), v, {prefix: "", interactive: v.seat !== null && v.seat !== undefined,
    moves: v.moves || [], drawn: v.drawn, onAction: act, rerender: renderLive});
  const names = seatNames(v);
  if (v.status === "running") setStatus("the bots are playing…");
  else if (v.game_over) setStatus("game over");
  else if (v.hand_over) setStatus((v.hand_and_foot ? "round" : "hand") + " over");
  else if (v.to_move === v.seat) setStatus("your move");
  else setStatus(names[v.to_move] + " to move");
  const over = v.game_over;
  const us = v.seat === null || v.seat === undefined ? 0 : v.seat % 2;
  rememberGame(state.game, {over, summary: (over ? "over " : "") + fmt(v.scores[us]) + " : " + fmt(v.scores[1 - us])});
}

async function withBusy(fn) {
  if (state.busy) return;
  state.busy = true;
  document.body.classList.add("busy");
  try { await fn(); showError(""); } catch (e) { showError(e.message); }
  finally {
    state.busy = false;
    document.body.classList.remove("busy");
    if (!$("table").hidden) renderLive();
    if (follow.again && state.game) refreshView();  // events that came in meanwhile
  }
}

// ------------------------------------------------------------------ the game's event stream
// GET /games/{id}/events as NDJSON (fetch, so that the seat token goes in a header): every
// event (a move, a turn, a deal, a hand or the game over) refreshes the view; a dropped
// stream is reopened after a second with Last-Event-ID, so no move is missed.
const follow = {ctrl: null, lastId: null, refreshing: false, again: false};

function stopFollowing() {
  if (follow.ctrl) follow.ctrl.abort();
  follow.ctrl = null;
}

function startFollowing() {
  stopFollowing();
  const g = state.game;
  const ctrl = new AbortController();
  follow.ctrl = ctrl;
  follow.lastId = state.view ? String(state.view.decisions) : null;
  streamLoop(g, ctrl);
}

function sleep(ms) { return new Promise(r => setTimeout(r, ms)); }

async function streamLoop(g, ctrl) {
  while (!ctrl.signal.aborted) {
    let ended = false;
    try {
      const headers = {"Accept": "application/x-ndjson"};
      if (g.token) headers["Authorization"] = "Bearer " + g.token;
      if (follow.lastId) headers["Last-Event-ID"] = follow.lastId;
      const res = await fetch("/games/" + g.id + "/events", {headers, signal: ctrl.signal});
      if (!res.ok) {
        let detail = res.statusText;
        try { detail = (await res.json()).detail || detail; } catch (e) { /* not JSON */ }
        if (res.status !== 429) { showError("live updates stopped: " + res.status + ": " + detail); return; }
      } else {
        document.body.dataset.live = "1";
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, {stream: true});
          let nl;
          while ((nl = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (!line.trim()) continue;  // a keep-alive
            const ev = JSON.parse(line);
            if (ev.id) follow.lastId = ev.id;
            if (ev.event === "game_over" || ev.event === "closed") ended = true;
            onEvent(ev);
          }
        }
      }
    } catch (e) {
      if (ctrl.signal.aborted) return;
    }
    if (ended || ctrl.signal.aborted) return;
    document.body.dataset.live = "0";
    await sleep(1000);
  }
}

function onEvent(ev) {
  document.body.dataset.events = String(Number(document.body.dataset.events || 0) + 1);
  refreshView();
}

async function refreshView() {
  if (follow.refreshing || state.busy) { follow.again = true; return; }
  follow.refreshing = true;
  const g = state.game;
  try {
    do {
      follow.again = false;
      const view = await api("GET", "/games/" + g.id, undefined, g.token);
      if (state.game !== g || state.busy) { follow.again = true; break; }
      state.view = view;
      if (!$("table").hidden) renderLive();
    } while (follow.again);
  } catch (e) {
    showError(e.message);
  } finally {
    follow.refreshing = false;
  }
}

// the opponents' choice: the difficulty levels of the chosen variant (GET /api "levels",
// from canasta_env/bots/levels.py; a level the variant lacks is shown but disabled), then
// the other policies by name
function fillPolicies(index) {
  const select = $("bot-policy");
  const before = select.value;
  const variant = document.querySelector("input[name=variant]:checked").value;
  const levels = (index.levels || {})[variant] || [];
  const names = new Set(levels.map(l => l.level));
  const isDefault = p => p === index.default_policy ? " (the server's default)" : "";
  const usable = new Set();
  const group = el("optgroup", {label: "Difficulty"});
  for (const l of levels) {
    if (l.policy !== null) usable.add(l.level);
    group.append(el("option", {value: l.level, disabled: l.policy === null,
      title: l.policy === null ? null : "plays " + l.policy,
      text: `${l.level}: ${l.description}${isDefault(l.level)}`}));
  }
  const others = el("optgroup", {label: "Other policies"});
  for (const p of index.policies) {
    if (names.has(p)) continue;
    usable.add(p);
    others.append(el("option", {value: p, text: p + isDefault(p)}));
  }
  select.replaceChildren(...(levels.length ? [group] : []), others);
  select.value = usable.has(before) ? before : index.default_policy;
}

async function newGame(ev) {
  ev.preventDefault();
  const form = $("new-game-form");
  const variant = form.querySelector("input[name=variant]:checked").value;
  // seats clockwise from mine: me (South, seat 0), West, North, East
  const seats = ["human", $("seat-west").value, $("seat-north").value, $("seat-east").value];
  const body = {seats, variant};
  const policy = $("bot-policy").value;
  if (policy) body.bot_policy = policy;
  const seed = $("seed").value.trim();
  if (seed !== "") {
    if (!/^\d+$/.test(seed)) { showError("the deal number is a whole number, or empty for a random deal"); return; }
    body.seed = Number(seed);
  }
  await withBusy(async () => {
    const res = await api("POST", "/games", body);
    // the other people's seats: a link each, to send them (their token is in it)
    const invites = [];
    for (let s = 1; s < 4; s++) {
      if (res.tokens[s]) invites.push({seat: s, link: location.origin + location.pathname + "#game="
        + encodeURIComponent(res.game_id) + "&token=" + encodeURIComponent(res.tokens[s])});
    }
    state.game = {id: res.game_id, token: res.tokens[0], variant, seat: 0, created: Date.now(),
                  invites};
    state.view = res.view;
    state.showPile = false;
    rememberGame(state.game);
    showTable();
  });
}

async function act(action) {
  await withBusy(async () => {
    const res = await api("POST", "/games/" + state.game.id + "/actions", {action}, state.game.token);
    state.view = res.view;  // its "drawn" keeps the cards drawn marked for the rest of the turn
  });
}

async function nextHand() {
  await withBusy(async () => {
    const res = await api("POST", "/games/" + state.game.id + "/next_hand", undefined, state.game.token);
    state.view = res.view;
    state.showPile = false;
  });
}

function showTable() {
  show("table");
  // the open game in the address, so that a reload comes back to it (the token stays in
  // this browser's storage, never in the address)
  history.replaceState(null, "", "#game=" + encodeURIComponent(state.game.id));
  startFollowing();
}

async function openGame(g) {
  await withBusy(async () => {
    state.game = g;
    state.view = await api("GET", "/games/" + g.id, undefined, g.token);
    showTable();
  });
}

// "#game=ID&token=TOKEN": a seat's invitation (a human partner or opponent), or "#game=ID"
// alone: a game of this browser (reopened after a reload) or anyone's game, watched
async function openFromAddress(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const id = params.get("game");
  if (!id) return;
  const token = params.get("token");
  const known = myGames().find(g => g.id === id && (!token || g.token === token));
  const g = known || {id, token: token || null, created: Date.now()};
  history.replaceState(null, "", "#game=" + encodeURIComponent(id));  // the token out of the address
  await withBusy(async () => {
    const view = await api("GET", "/games/" + id, undefined, g.token);
    g.variant = view.variant;
    g.seat = view.seat;
    state.game = g;
    state.view = view;
    if (g.token) rememberGame(g);
    showTable();
  });
}

// ------------------------------------------------------------------ replay
function checkReplay(doc) {
  if (!doc || doc.format !== "canasta_env.replay" || !Array.isArray(doc.frames) || !doc.frames.length
      || !Array.isArray(doc.moves)) {
    throw new Error("not a canasta_env game log (format canasta_env.replay with frames and moves)");
  }
  const arr = (x, n) => Array.isArray(x) && (n === undefined || x.length === n);
  for (const f of doc.frames) {
    const ok = f && typeof f === "object" && arr(f.players, 4) && arr(f.melds, 2) && arr(f.scores, 2)
      && arr(f.opened, 2) && arr(f.opening_minimum, 2) && f.pile && arr(f.pile.cards)
      && arr(f.pile.frozen_for, 2) && f.turn && typeof f.turn === "object" && typeof f.hand_number === "number"
      && f.players.every(p => p && typeof p.hand_size === "number" && typeof p.red_threes === "number");
    if (!ok) throw new Error("the game log has a malformed frame");
  }
  return doc;
}

function startReplay(doc) {
  state.replay = {doc: checkReplay(doc), step: 0};
  state.showPile = false;
  const range = $("replay-step");
  range.max = String(doc.frames.length - 1);
  show("replay");
  try { renderReplay(); }
  catch (e) { state.replay = null; show("lobby"); throw new Error("the game log cannot be shown: " + e.message); }
}

function renderReplay() {
  const r = state.replay;
  if (!r) return;
  const frame = r.doc.frames[r.step];
  const step = typeof frame.step === "number" ? frame.step : r.step;
  const moves = r.doc.moves.filter(m => m.hand_number === frame.hand_number && m.seq <= step);
  const last = moves.length && moves[moves.length - 1].seq === step ? moves[moves.length - 1] : null;
  renderBoard($("replay-board"), frame, {prefix: "replay-", interactive: false, moves, lastMove: last,
    drawn: frame.drawn, rerender: renderReplay});
  $("replay-step").value = String(r.step);
  $("replay-position").textContent = "move " + step + " of " + r.doc.moves.length;
  const names = seatNames(frame);
  $("replay-move").textContent = frame.last_move ? sentence(names, frame.last_move)
    : r.step === 0 ? "The deal." : "A new deal.";
  $("replay-back").disabled = r.step === 0;
  $("replay-first").disabled = r.step === 0;
  $("replay-forward").disabled = r.step === r.doc.frames.length - 1;
  $("replay-last").disabled = r.step === r.doc.frames.length - 1;
  setStatus("replay of game " + r.doc.game_id);
}

function stepReplay(to) {
  const r = state.replay;
  if (!r) return;
  r.step = Math.max(0, Math.min(r.doc.frames.length - 1, to));
  renderReplay();
}

async function openReplay(g) {
  await withBusy(async () => {
    const doc = await api("GET", "/games/" + g.id + "/replay", undefined, g.token);
    startReplay(doc);
  });
}

function saveReplay() {
  const r = state.replay;
  if (!r) return;
  const blob = new Blob([JSON.stringify(r.doc)], {type: "application/json"});
  const a = el("a", {href: URL.createObjectURL(blob), download: "canasta-" + r.doc.game_id + ".json"});
  document.body.append(a);
  a.click();
  a.remove();
}

function readReplayFile(ev) {
  const file = ev.target.files && ev.target.files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => {
    try { startReplay(JSON.parse(reader.result)); showError(""); }
    catch (e) { showError("cannot open " + file.name + ": " + e.message); }
  };
  reader.onerror = () => showError("cannot read " + file.name);
  reader.readAsText(file);
  ev.target.value = "";
}

// ------------------------------------------------------------------ start
async function init() {
  const address = location.hash;  // read before the lobby is shown (it clears the address)
  $("new-game-form").addEventListener("submit", newGame);
  $("home").addEventListener("click", () => {
    stopFollowing();
    history.replaceState(null, "", location.pathname);
    show("lobby"); renderGameList(); setStatus(""); showError("");
  });
  $("replay-file").addEventListener("change", readReplayFile);
  $("replay-first").addEventListener("click", () => stepReplay(0));
  $("replay-back").addEventListener("click", () => stepReplay(state.replay.step - 1));
  $("replay-forward").addEventListener("click", () => stepReplay(state.replay.step + 1));
  $("replay-last").addEventListener("click", () => stepReplay(Infinity));
  $("replay-step").addEventListener("input", e => stepReplay(Number(e.target.value)));
  $("replay-save").addEventListener("click", saveReplay);
  document.addEventListener("keydown", e => {
    if ($("replay").hidden || !state.replay || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") stepReplay(state.replay.step + 1);
    else if (e.key === "ArrowLeft") stepReplay(state.replay.step - 1);
    else if (e.key === "Home") stepReplay(0);
    else if (e.key === "End") stepReplay(Infinity);
  });
  renderGameList();
  show("lobby");
  try {
    const index = await api("GET", "/api");
    fillPolicies(index);
    for (const radio of document.querySelectorAll("input[name=variant]")) {
      radio.addEventListener("change", () => fillPolicies(index));
    }
  } catch (e) { showError(e.message); }
  await openFromAddress(address);
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", init);
