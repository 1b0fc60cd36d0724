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

function groupEl(g, handMoves, seat, play) {
  const classes = "group " + g.label.replace(/ /g, "-");
  const cards = g.cards.map((c) => {
    const move = handMoves && handMoves[c.split(":")[0]]; // a joker shown as JK:7D is the card JK
    return cardEl(c, move ? {class: "legal", onclick: () => play(move), title: move.label,
      dataset: {action: move.id, target: "hand", group: move.group}} : undefined);
  });
  const added = (g.added || []).map((c) => cardEl(c, {class: "added", title: "laid off by the other player"}));
  return el("div", {class: classes, dataset: {label: g.label, seat}}, el("span", {class: "label"}, g.label),
    el("span", {class: "cards"}, cards, added));
}

function handEl(view, title, handMoves, play) {
  return el("div", {class: "hand", dataset: {seat: view.seat}},
    el("div", {}, el("b", {}, title), " \u00b7 ", el("span", {class: "note"}, view.hand.note)),
    el("div", {class: "groups"}, view.hand.groups.map((g) => groupEl(g, handMoves, view.seat, play))));
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
    const node = handEl(v, title, v.seat === data.you ? handMoves : null, play);
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
    el("b", {}, `${data.names[s.seat]} (${s.title}): `), s.groups.map((g) => groupEl(g, null, s.seat)), el("span", {}, ` ${s.note}`))) : [];
  return el("div", {class: "showdown", id: "showdown"}, el("b", {}, `Hand ${last.number}`),
    el("pre", {}, last.explanation), seats, ...extra);
}

function logLines(data) {
  return data.log.slice().reverse().map((m) => el("div", {}, `hand ${m.hand} \u00b7 ${data.names[m.seat]}: ${m.text}`));
}
