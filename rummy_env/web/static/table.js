// A table: a game played (the person's seat only), watched (every seat, or one) or replayed.
// The server holds the game; this page draws what GET/POST /api/games/ID answers and asks for
// the agents' moves one at a time, after a short delay, so people can follow them.
"use strict";

const GAME_ID = location.pathname.split("/").pop();
// ms before an agent's move in a game played (?delay=MS in the address changes it)
const AGENT_DELAY = Number(new URLSearchParams(location.search).get("delay") || 700);
let version = 0; // renders so far (tests wait for the next one)
let data = null;
let busy = false; // a request is under way
let paused = false; // watching: paused by the person
let waiting = false; // playing a match: a hand just ended, waiting for "Next hand"
let seenHands = 0;
let timer = null;
let seatView = "all";

function query() {
  return data && data.kind !== "play" ? `?seat=${seatView}` : "";
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

async function request(method, path, body) {
  busy = true;
  try {
    const answer = await api(method, path + query(), body);
    showError("");
    receive(answer);
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    schedule();
  }
}

function receive(answer) {
  data = answer;
  if (data.hands.length > seenHands) {
    seenHands = data.hands.length;
    if (data.kind === "play" && !data.over) waiting = true;
  }
  render();
}

function agentToMove() {
  return data && !data.over && data.to_move !== null && data.to_move !== data.you;
}

// Ask for the next agent move when it is an agent's turn and nothing holds the game.
function schedule() {
  clearTimeout(timer);
  if (!agentToMove() || busy || waiting || (data.kind !== "play" && paused)) return;
  const delay = data.kind === "play" ? AGENT_DELAY : Number(document.getElementById("speed").value);
  timer = setTimeout(advance, delay);
}

function advance() {
  if (!agentToMove() || busy) return;
  setStatus(el("span", {class: "thinking"}, `${data.names[data.to_move]} is thinking`));
  request("POST", `/api/games/${GAME_ID}/advance`);
}

function play(move) {
  if (busy) return;
  request("POST", `/api/games/${GAME_ID}/move`, {action: move.id});
}

function setStatus(content, yours) {
  const status = document.querySelector("#table .status");
  if (!status) return;
  status.className = "status" + (yours ? " yours" : "");
  status.replaceChildren(content);
}

// ------------------------------------------------------------------ drawing

function statusText() {
  if (data.over) return [data.kind === "replay" ? "The replay is over." : "The game is over.", false];
  if (waiting) return ["The hand is over: read the showdown above, then Next hand.", false];
  if (data.to_move === data.you && data.you !== null) return [`Your turn: ${prompt()}.`, true];
  const who = data.names[data.to_move];
  if (data.kind !== "play" && paused) return [`Paused; ${who} is to move.`, false];
  return [el("span", {class: "thinking"}, `${who} is thinking`), false];
}

// What the person may do, in words: "draw from the stock, or take the face-up card".
function prompt() {
  const phrases = [];
  for (const m of data.moves) {
    const phrase = m.target === "hand" ? `click a highlighted card to ${m.group || "play it"}`
      : m.target ? `${m.label} (click it)` : m.group || m.label;
    if (!phrases.includes(phrase)) phrases.push(phrase);
  }
  return phrases.join(", or ");
}

function groupEl(g, handMoves, seat) {
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

function handEl(view, title, handMoves) {
  return el("div", {class: "hand", dataset: {seat: view.seat}},
    el("div", {}, el("b", {}, title), " \u00b7 ", el("span", {class: "note"}, view.hand.note)),
    el("div", {class: "groups"}, view.hand.groups.map((g) => groupEl(g, handMoves, view.seat))));
}

function seatEl(p, view) {
  const known = p.known.length ? [" known: ", cardRow(p.known)] : [];
  return el("div", {class: "seat" + (data.to_move === p.seat ? " to-move" : ""), dataset: {seat: p.seat}},
    el("div", {class: "name"}, data.names[p.seat]), backs(p.cards), el("div", {class: "note"}, p.note), known);
}

function render() {
  document.title = `${data.title}: ${data.kind}`;
  const shown = data.views;
  const first = shown[0];
  // the person's moves: a card in the hand, the stock, the pile, or a button
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
  const [text, yours] = statusText();
  const status = el("div", {class: "status" + (yours ? " yours" : "")}, text);

  const everyone = shown.length > 1;
  const seen = new Set(shown.map((v) => v.seat));
  const others = first.players.filter((p) => !seen.has(p.seat));
  const seats = el("div", {class: "seats"}, others.map((p) => seatEl(p, first)));

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

  const hands = shown.map((v) => {
    const p = v.players[v.seat];
    const title = data.names[v.seat] + (p.note ? ` (${p.note})` : "");
    const node = handEl(v, title, v.seat === data.you ? handMoves : null);
    if (everyone && data.to_move === v.seat) node.classList.add("to-move");
    return node;
  });
  const moveRows = Object.entries(buttons).map(([group, list]) => el("div", {}, el("span", {class: "kind"}, group),
    list.map((m) => el("button", {class: "action legal", type: "button", onclick: () => play(m), title: `action ${m.id}`,
      dataset: {action: m.id, group: m.group}}, m.label))));
  const facts = el("div", {class: "facts"}, first.facts.map(([k, v]) => el("span", {}, `${k}: ${v}`)));
  const tableNode = document.getElementById("table");
  tableNode.replaceChildren(bar, status, seats, middle, ...hands, el("div", {class: "moves"}, moveRows), facts);
  tableNode.dataset.state = data.over ? "over" : waiting ? "waiting" : data.to_move === data.you ? "yours" : "others";
  tableNode.dataset.version = String(++version);
  renderShowdowns();
  renderLog();
  renderControls();
}

function renderShowdowns() {
  const box = document.getElementById("showdowns");
  const last = data.hands[data.hands.length - 1];
  if (!last) { box.replaceChildren(); return; }
  const seats = last.showdown ? last.showdown.seats.map((s) => el("div", {class: "seatline", dataset: {seat: s.seat}},
    el("b", {}, `${data.names[s.seat]} (${s.title}): `), s.groups.map((g) => groupEl(g, null, s.seat)), el("span", {}, ` ${s.note}`))) : [];
  const next = waiting ? el("button", {class: "action", id: "next-hand", type: "button",
    onclick: () => { waiting = false; render(); schedule(); }}, "Next hand") : null;
  const again = data.over && data.kind !== "replay" ? el("a", {href: "/"}, "new game") : null;
  // a game played was dealt secretly: its deal number is told once it is over (watch agents play it)
  const deal = data.over && data.deal !== null ? el("span", {class: "muted", id: "deal"}, ` deal ${data.deal}`) : null;
  box.replaceChildren(el("div", {class: "showdown", id: "showdown"}, el("b", {}, `Hand ${last.number}`),
    el("pre", {}, last.explanation), seats, next, again, deal));
}

function renderLog() {
  const box = document.getElementById("log");
  box.replaceChildren(...data.log.slice().reverse().map((m) =>
    el("div", {}, `hand ${m.hand} \u00b7 ${data.names[m.seat]}: ${m.text}`)));
}

function renderControls() {
  const controls = document.getElementById("controls");
  controls.hidden = data.kind === "play";
  if (controls.hidden) return;
  document.getElementById("pause").textContent = paused ? "Play" : "Pause";
  document.getElementById("step").disabled = !paused || data.over;
  const select = document.getElementById("seat-view");
  if (!select.options.length) {
    select.append(el("option", {value: "all"}, "every hand (spectator)"),
      ...data.names.map((n, s) => el("option", {value: String(s)}, `${n}'s view only`)));
  }
  select.value = seatView;
}

function main() {
  document.getElementById("pause").addEventListener("click", () => { paused = !paused; render(); schedule(); });
  document.getElementById("step").addEventListener("click", () => { if (paused) advance(); });
  document.getElementById("speed").addEventListener("change", schedule);
  document.getElementById("seat-view").addEventListener("change", (event) => {
    seatView = event.target.value;
    request("GET", `/api/games/${GAME_ID}`);
  });
  request("GET", `/api/games/${GAME_ID}`);
}

main();
