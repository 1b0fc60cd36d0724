// Drawing a table on the felt from what the server sent (a table view: GET /api/games/ID,
// or a people's table's message): the bar, the seats, the stock and the pile, the melds,
// the hands shown and the moves the person may make (each calls play(move)), the showdown
// lines and the log. Shared by the agents' table page (table.js) and people's tables (people.js).
"use strict";

// What the person may do, in words: "draw from the stock, or take the face-up card".
function promptText(data) {
  const phrases = [];
  for (const m of data.moves) {
    const phrase = m.target === "hand" ? `click a highlighted card to ${m.group || "play it"}`
      : m.target ? `${m.label} (click it)` : m.group || m.label;
    if (!phrases.includes(phrase)) phrases.push(phrase);
  }
  return phrases.join(", or ");
}

// A group of cards (a meld, the deadwood, ...); ``attrsOf(card)``: each card's attributes (its move), if any.
function groupEl(g, seat, attrsOf) {
  const classes = "group " + g.label.replace(/ /g, "-");
  const cards = g.cards.map((c) => cardEl(c, attrsOf ? attrsOf(c) : undefined));
  const added = (g.added || []).map((c) => cardEl(c, {class: "added", title: "laid off by the other player"}));
  return el("div", {class: classes, dataset: {label: g.label, seat}}, el("span", {class: "label"}, g.label),
    el("span", {class: "cards"}, cards, added));
}

// A hand shown that is not the person's (watching, replaying): its groups, no moves.
function handEl(view, title) {
  return el("div", {class: "hand", dataset: {seat: view.seat}},
    el("div", {}, el("b", {}, title), " \u00b7 ", el("span", {class: "note"}, view.hand.note)),
    el("div", {class: "groups"}, view.hand.groups.map((g) => groupEl(g, view.seat))));
}

// ------------------------------------------------------------ the person's own hand
// How the person has their hand shown: as the server groups it ("melds"), sorted "rank" or
// "suit", or in their "own" order (dragged). The page's own: it changes nothing on the server,
// and an own order is kept across re-renders of the same hand (a new hand starts from the
// server's grouping). ``drawn``: the cards that came into the hand this turn (a draw from the
// stock or the pile), told apart by comparing the hand with the one drawn before.
const handSort = {mode: "melds", order: [], hand: null};
const drawnMemo = {hand: null, cards: null, drawn: []};
const RANKS = "A23456789TJQK";
const SUIT_ORDER = "CDHS";

function cardKey(text) { // "JK:7D" is the card JK (a joker standing for 7D)
  return text.split(":")[0];
}

function minus(cards, taken) { // the multiset cards - taken (card keys)
  const left = cards.slice();
  for (const c of taken) { const k = left.indexOf(c); if (k >= 0) left.splice(k, 1); }
  return left;
}

// Which cards of the person's hand were drawn this turn (keys, a multiset), remembered here.
function drawnCards(data, view) {
  const cards = view.hand.groups.flatMap((g) => g.cards.map(cardKey));
  const memo = drawnMemo;
  if (memo.hand !== data.hand_number || memo.cards === null || data.to_move !== data.you) {
    memo.drawn = [];
  } else {
    const added = minus(cards, memo.cards);
    memo.drawn = added.length ? added : memo.drawn.filter((c) => cards.includes(c));
  }
  memo.hand = data.hand_number;
  memo.cards = cards;
  return memo.drawn;
}

function sortKey(text, mode) {
  const key = cardKey(text);
  if (key === "JK") return [9, 99, 0];
  const rank = RANKS.indexOf(key[0]);
  const suit = SUIT_ORDER.indexOf(key[1]);
  return mode === "rank" ? [0, rank, suit] : [0, suit, rank];
}

// The hand's cards, each with its group's label, in the order chosen.
function orderedCards(view, handNumber) {
  const cards = view.hand.groups.flatMap((g) => g.cards.map((c) => ({text: c, label: g.label})));
  if (handSort.hand !== handNumber) {
    handSort.hand = handNumber;
    handSort.order = [];
    if (handSort.mode === "own") handSort.mode = "melds";
  }
  if (handSort.mode === "rank" || handSort.mode === "suit") {
    const cmp = (a, b) => { const x = sortKey(a.text, handSort.mode), y = sortKey(b.text, handSort.mode);
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; };
    return cards.slice().sort(cmp);
  }
  // own order: the cards of the remembered order first, in it, then the others as the server sent them
  const rest = cards.slice();
  const out = [];
  for (const key of handSort.order) {
    const k = rest.findIndex((c) => cardKey(c.text) === key);
    if (k >= 0) out.push(rest.splice(k, 1)[0]);
  }
  return out.concat(rest);
}

function setSort(mode) {
  handSort.mode = mode;
  render(); // the page's own render (table.js, people.js): nothing is asked of the server
}

// Drag a card onto another: it takes that one's place, and the hand is in the person's own order.
function dropCard(fromIndex, toIndex, order) {
  const keys = order.map((c) => cardKey(c.text));
  const [moved] = keys.splice(fromIndex, 1);
  keys.splice(toIndex, 0, moved);
  handSort.order = keys;
  handSort.mode = "own";
  render();
}

function sortBar(mode) {
  const button = (m, text) => el("button", {class: "plain sort" + (mode === m ? " chosen" : ""), type: "button",
    id: `sort-${m}`, onclick: () => setSort(m)}, text);
  return el("span", {class: "sortbar"}, "sort: ", button("melds", "melds"), button("rank", "by rank"),
    button("suit", "by suit"), mode === "own" ? el("span", {class: "muted-light"}, " your order (drag cards)") : null);
}

// The person's own hand: the sort buttons, the cards as chosen (draggable once not grouped),
// the cards drawn this turn marked.
function ownHandEl(data, view, title, handMoves, play) {
  const drawn = drawnCards(data, view).slice();
  const mark = (text) => { const k = drawn.indexOf(cardKey(text)); if (k < 0) return false; drawn.splice(k, 1); return true; };
  const legal = (text) => handMoves[cardKey(text)];
  const attrs = (text, extra) => {
    const move = legal(text);
    const a = move ? {class: "legal", onclick: () => play(move), title: move.label,
      dataset: Object.assign({action: move.id, target: "hand", group: move.group}, extra)} : {dataset: extra};
    if (mark(text)) { a.class = (a.class ? a.class + " " : "") + "drawn"; a.title = (a.title ? a.title + " \u00b7 " : "") + "just drawn"; }
    return a;
  };
  let body;
  if (handSort.mode === "melds") {
    handSort.hand = data.hand_number;
    body = view.hand.groups.map((g) => groupEl(g, view.seat, (c) => attrs(c, {})));
  } else {
    const order = orderedCards(view, data.hand_number);
    const row = el("span", {class: "cards sorted", id: "own-hand"}, order.map((c, k) => {
      const node = cardEl(c.text, attrs(c.text, {label: c.label, index: k}));
      node.setAttribute("draggable", "true");
      node.addEventListener("dragstart", (event) => { event.dataTransfer.setData("text/plain", String(k)); });
      node.addEventListener("dragover", (event) => event.preventDefault());
      node.addEventListener("drop", (event) => {
        event.preventDefault();
        const from = Number(event.dataTransfer.getData("text/plain"));
        if (Number.isInteger(from) && from !== k) dropCard(from, k, order);
      });
      return node;
    }));
    body = [el("div", {class: "group", dataset: {label: "hand", seat: view.seat}},
      el("span", {class: "label"}, handSort.mode === "own" ? "your order" : `by ${handSort.mode}`), row)];
  }
  return el("div", {class: "hand own", dataset: {seat: view.seat}},
    el("div", {}, el("b", {}, title), " \u00b7 ", el("span", {class: "note"}, view.hand.note), " ", sortBar(handSort.mode)),
    el("div", {class: "groups"}, body));
}

function seatEl(data, p) {
  const known = p.known.length ? [" known: ", cardRow(p.known)] : [];
  return el("div", {class: "seat" + (data.to_move === p.seat ? " to-move" : ""), dataset: {seat: p.seat}},
    el("div", {class: "name"}, data.names[p.seat]), backs(p.cards), el("div", {class: "note"}, p.note), known);
}

// The felt's contents: the bar, ``status`` (a node), the other seats, the middle, the hands
// shown (a spectator of a people's table has none) with the person's moves, and the facts.
function feltNodes(data, status, play) {
  const shown = data.views;
  const first = shown[0];
  const handMoves = {};
  const targets = {};
  const buttons = {};
  for (const m of data.moves) {
    if (m.target === "hand" && !(m.card in handMoves)) handMoves[m.card] = m;
    else if ((m.target === "stock" || m.target === "pile") && !(m.target in targets)) targets[m.target] = m;
    else (buttons[m.group || "moves"] = buttons[m.group || "moves"] || []).push(m);
  }
  const score = data.score ? el("span", {class: "score"}, `${data.score.title}:`,
    data.score.points.map((p, s) => el("span", {}, `${data.names[s]} `, el("b", {}, String(p))))) : null;
  const bar = el("div", {class: "bar"}, el("span", {class: "title"}, data.title),
    el("span", {}, `rules ${data.rules}`), el("span", {}, `hand ${data.hand_number}`), score);

  const everyone = shown.length > 1;
  const seen = new Set(shown.map((v) => v.seat));
  const others = first.players.filter((p) => !seen.has(p.seat));
  const seats = el("div", {class: "seats"}, others.map((p) => seatEl(data, p)));

  const top = first.discard_pile.length ? first.discard_pile[first.discard_pile.length - 1] : null;
  const pileMove = targets.pile;
  const stockMove = targets.stock;
  const stock = el("div", {class: "pile stock"},
    stockMove ? el("button", {class: "card back legal", onclick: () => play(stockMove), title: stockMove.label,
      dataset: {action: stockMove.id, target: "stock"}}) : el("span", {class: "card back"}),
    el("span", {class: "label"}, `stock: ${first.stock}`));
  const pile = el("div", {class: "pile discard"},
    top ? cardEl(top, pileMove ? {class: "legal", onclick: () => play(pileMove), title: pileMove.label,
      dataset: {action: pileMove.id, target: "pile"}} : undefined) : el("span", {class: "card empty"}),
    el("span", {class: "label", title: first.discard_pile.join(" ")}, `discard pile: ${first.discard_pile.length}`));
  const melds = el("div", {class: "melds"}, first.table.map((g) =>
    el("div", {class: "meld"}, el("span", {class: "label"}, g.label + (g.owner !== null && g.owner !== undefined ? ` \u00b7 ${data.names[g.owner]}` : "")),
      cardRow(g.cards))));
  const middle = el("div", {class: "middle"}, stock, pile, melds);

  const hands = shown.filter((v) => v.seat !== null).map((v) => {
    const p = v.players[v.seat];
    const title = data.names[v.seat] + (p.note ? ` (${p.note})` : "");
    const node = v.seat === data.you && v.hand.groups.length ? ownHandEl(data, v, title, handMoves, play)
      : handEl(v, title);
    if (everyone && data.to_move === v.seat) node.classList.add("to-move");
    return node;
  });
  const moveRows = Object.entries(buttons).map(([group, list]) => el("div", {}, el("span", {class: "kind"}, group),
    list.map((m) => el("button", {class: "action legal", type: "button", onclick: () => play(m), title: `action ${m.id}`,
      dataset: {action: m.id, group: m.group}}, m.label))));
  const facts = el("div", {class: "facts"}, first.facts.map(([k, v]) => el("span", {}, `${k}: ${v}`)));
  return [bar, status, seats, middle, ...hands, el("div", {class: "moves"}, moveRows), facts];
}

// The last hand's showdown (or null): its explanation and each hand as the rules laid it out,
// then ``extra`` nodes (a button, a link).
function showdownEl(data, ...extra) {
  const last = data.hands[data.hands.length - 1];
  if (!last) return null;
  const seats = last.showdown ? last.showdown.seats.map((s) => el("div", {class: "seatline", dataset: {seat: s.seat}},
    el("b", {}, `${data.names[s.seat]} (${s.title}): `), s.groups.map((g) => groupEl(g, s.seat)), el("span", {}, ` ${s.note}`))) : [];
  return el("div", {class: "showdown", id: "showdown"}, el("b", {}, `Hand ${last.number}`),
    el("pre", {}, last.explanation), seats, data.over ? sheetEl(data) : null, ...extra);
}

// A match's score sheet (the server's, from the game's own match scoring): a row per hand
// with who won it, how, its bonuses and what it added to each seat, then the totals.
function sheetEl(data) {
  const sheet = data.score_sheet;
  if (!sheet) return null;
  const seats = data.names.map((n) => el("th", {}, n));
  const rows = sheet.rows.map((r) => el("tr", {dataset: {hand: r.hand}}, el("td", {}, String(r.hand)),
    el("td", {}, r.winner === null ? "nobody" : data.names[r.winner]), el("td", {}, r.how),
    el("td", {class: "bonuses"}, r.bonuses.map(([name, points]) => `${name} ${points}`).join(", ")),
    r.points.map((p) => el("td", {class: "num"}, String(p)))));
  const totals = sheet.totals.map((t, k) => el("tr", {class: k === sheet.totals.length - 1 ? "total last" : "total"},
    el("td", {colspan: 4}, t.label), t.points.map((p) => el("td", {class: "num"}, String(p)))));
  return el("table", {class: "grid sheet", id: "score-sheet"},
    el("caption", {}, sheet.final ? "Score sheet: the match" : "Score sheet so far"),
    el("thead", {}, el("tr", {}, el("th", {}, "hand"), el("th", {}, "won by"), el("th", {}, "how"), el("th", {}, "bonuses"), seats)),
    el("tbody", {}, rows), el("tfoot", {}, totals));
}

// The log, latest first; with ``jump`` (a replay), each line goes to the position after its move.
function logLines(data, jump) {
  return data.log.slice().reverse().map((m) => el("div", {dataset: {index: m.index},
    class: jump ? "jump" + (m.index === data.position ? " here" : "") : null,
    title: jump ? "go to this move" : null, onclick: jump ? () => jump(m.index) : null},
  `${jump ? `${m.index}. ` : ""}hand ${m.hand} \u00b7 ${data.names[m.seat]}: ${m.text}`));
}
