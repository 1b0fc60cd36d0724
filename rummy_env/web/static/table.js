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

// A replay goes to the position after its first ``position`` moves (back or forward), paused.
function seek(position) {
  if (busy || data.kind !== "replay") return;
  paused = true;
  request("POST", `/api/games/${GAME_ID}/seek`, {move: position});
}

// A new table made from this one (a rematch with the same settings, or a replay of this game): opened.
async function another(what, button) {
  button.disabled = true;
  try {
    const made = await api("POST", `/api/games/${GAME_ID}/${what}`);
    location.href = `/table/${made.id}`;
  } catch (e) {
    showError(e.message);
    button.disabled = false;
  }
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
  if (data.to_move === data.you && data.you !== null) return [`Your turn: ${promptText(data)}.`, true];
  const who = data.names[data.to_move];
  if (data.kind !== "play" && paused) return [`Paused; ${who} is to move.`, false];
  return [el("span", {class: "thinking"}, `${who} is thinking`), false];
}

function render() {
  document.title = `${data.title}: ${data.kind}`;
  const [text, yours] = statusText();
  const status = el("div", {class: "status" + (yours ? " yours" : "")}, text);
  const tableNode = document.getElementById("table");
  tableNode.replaceChildren(...feltNodes(data, status, play));
  tableNode.dataset.state = data.over ? "over" : waiting ? "waiting" : data.to_move === data.you ? "yours" : "others";
  tableNode.hidden = waiting; // the next deal is not shown behind the hand's result: "Next hand" shows it
  tableNode.dataset.version = String(++version);
  renderShowdowns();
  renderLog();
  renderControls();
}

function renderShowdowns() {
  const box = document.getElementById("showdowns");
  const next = waiting ? el("button", {class: "action", id: "next-hand", type: "button",
    onclick: () => { waiting = false; render(); schedule(); }}, "Next hand") : null;
  const mine = data.over && data.kind !== "replay";
  const again = mine ? el("a", {href: "/"}, "new game") : null;
  const rematch = mine ? el("button", {class: "action", id: "rematch", type: "button",
    onclick: (event) => another("rematch", event.target)}, "Rematch (same settings, a new deal)") : null;
  const replay = mine ? el("button", {class: "plain", id: "replay-game", type: "button",
    onclick: (event) => another("replay", event.target)}, "Replay this game") : null;
  // a game played was dealt secretly: its deal number is told once it is over (watch agents play it)
  const deal = data.over && data.deal !== null ? el("span", {class: "muted", id: "deal"}, ` deal ${data.deal}`) : null;
  const showdown = showdownEl(data, next, rematch, replay, again, deal);
  box.replaceChildren(...(showdown ? [showdown] : []));
}

function renderLog() {
  document.getElementById("log").replaceChildren(...logLines(data, data.kind === "replay" ? seek : null));
}

function renderControls() {
  const controls = document.getElementById("controls");
  controls.hidden = data.kind === "play";
  if (controls.hidden) return;
  document.getElementById("pause").textContent = paused ? "Play" : "Pause";
  document.getElementById("step").disabled = !paused || data.over;
  const back = document.getElementById("step-back");
  back.hidden = data.kind !== "replay";
  back.disabled = data.position === 0;
  document.getElementById("position").textContent = data.kind === "replay" ? `move ${data.position} of ${data.length}` : "";
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
  document.getElementById("step-back").addEventListener("click", () => { if (data.position > 0) seek(data.position - 1); });
  document.getElementById("speed").addEventListener("change", schedule);
  document.getElementById("seat-view").addEventListener("change", (event) => {
    seatView = event.target.value;
    request("GET", `/api/games/${GAME_ID}`);
  });
  request("GET", `/api/games/${GAME_ID}`);
}

main();
