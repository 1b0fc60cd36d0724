// A people's table: who sits where, joining with an invitation (the #invite=... of the link),
// ready, leave and back, and the table itself, updated live by the server's events
// (GET /api/tables/ID/events: every change, for this seat only). This browser keeps the
// seat's token (localStorage), so a reload or a lost connection finds the seat again.
"use strict";

const TABLE_ID = location.pathname.split("/").pop();
const SEAT_KEY = `rummy-seat-${TABLE_ID}`;
let token = localStorage.getItem(SEAT_KEY);
let message = null; // the last message: {status, table}
let version = 0; // renders so far (tests wait for the next one)
let source = null;
let busy = false;

function invite() {
  return new URLSearchParams(location.hash.slice(1)).get("invite");
}

function showError(text) {
  const box = document.getElementById("error");
  box.textContent = text;
  box.hidden = !text;
}

function withToken(path) {
  return token ? `${path}?token=${encodeURIComponent(token)}` : path;
}

async function send(path, body) {
  if (busy) return;
  busy = true;
  try {
    receive(await api("POST", `/api/tables/${TABLE_ID}/${path}`, Object.assign({token}, body || {})));
    showError("");
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
}

function play(move) {
  send("move", {action: move.id});
}

// The live stream: the browser reopens it after a network failure. When it gives up (the
// server refused the stream: a limit, a seat token that is not this table's, a table
// dropped), the table is asked for once: if it answers, the stream is opened again a
// moment later; if not, its error is shown. A "gone" event ends it for good.
function connect() {
  if (source) source.close();
  const opened = source = new EventSource(withToken(`/api/tables/${TABLE_ID}/events`));
  opened.addEventListener("table", (event) => receive(JSON.parse(event.data)));
  opened.addEventListener("gone", (event) => { opened.close(); showError(JSON.parse(event.data).error); });
  opened.addEventListener("error", () => {
    if (opened.readyState !== EventSource.CLOSED || source !== opened) return;
    api("GET", withToken(`/api/tables/${TABLE_ID}`)).then((answer) => {
      receive(answer);
      setTimeout(() => { if (source === opened) connect(); }, 2000);
    }, (e) => showError(e.message));
  });
}

async function join(event) {
  event.preventDefault();
  const name = ACCOUNT.accounts ? "" : document.getElementById("join-name").value.trim(); // accounts: the account's
  if (name) localStorage.setItem("rummy-name", name);
  try {
    const joined = await api("POST", `/api/tables/${TABLE_ID}/join`, name ? {invite: invite(), name} : {invite: invite()});
    token = joined.token;
    localStorage.setItem(SEAT_KEY, token);
    history.replaceState(null, "", location.pathname); // the invitation is spent: out of the address bar
    showError("");
    receive(joined.table);
    connect();
  } catch (e) {
    showError(e.message);
  }
}

let turnEnds = null; // when the time for my move runs out (Date.now() ms), while it is my move

function receive(answer) {
  // an answer and the live stream may arrive out of order: a position older than the one
  // shown is never drawn over it (the moves played only grow at a table)
  if (message && message.table && answer.table && answer.table.position < message.table.position) return;
  message = answer;
  const data = answer.table;
  const mine = data !== null && !data.over && data.to_move === data.you && data.moves.length > 0;
  // each move has turn_limit seconds from the move before it: counted from this message
  turnEnds = mine && answer.status.turn_limit > 0 ? Date.now() + 1000 * answer.status.turn_limit : null;
  render();
}

function showClock() {
  const clock = document.getElementById("turn-clock");
  if (clock && turnEnds !== null) clock.textContent = ` (${Math.max(0, Math.ceil((turnEnds - Date.now()) / 1000))} s left)`;
}

function mySeat() {
  const s = message.status;
  return s.you === null ? null : s.seats[s.you];
}

function seatState(s) {
  if (!s.person) return "agent";
  if (!s.joined) return "waiting for someone to join";
  if (message.status.state === "waiting") return s.ready ? "ready" : "not ready";
  if (message.status.state === "over") return "played";
  if (s.agent_plays) return `away: ${s.agent} plays for them`;
  return s.away ? "connection lost" : "playing";
}

function renderSeating() {
  const st = message.status;
  const me = mySeat();
  document.title = `${st.title}: a table for people`;
  document.getElementById("seating-title").textContent =
    `${st.title} \u00b7 rules ${st.rules} \u00b7 ${st.episode === "match" ? "a match" : "one hand"} \u00b7 ${st.state}` +
    (me ? ` \u00b7 you are seat ${st.you}` : token ? "" : " \u00b7 watching");
  document.querySelector("#seat-list tbody").replaceChildren(...st.seats.map((s) =>
    el("tr", {class: s.seat === st.you ? "you" : null, dataset: {seat: s.seat}}, el("td", {}, String(s.seat)),
      el("td", {}, s.person ? (s.joined ? s.name : "a person") + (s.seat === st.you ? " (you)" : "") : `${s.agent} (agent)`),
      el("td", {}, seatState(s)))));
  const joinForm = document.getElementById("join");
  joinForm.hidden = token !== null || !invite() || st.state !== "waiting";
  const ready = document.getElementById("ready");
  ready.hidden = !me || st.state !== "waiting";
  ready.textContent = me && me.ready ? "Not ready" : "I'm ready";
  document.getElementById("leave").hidden = !me || st.state !== "playing" || me.left;
  document.getElementById("back").hidden = !me || st.state !== "playing" || !me.agent_plays;
  const invites = JSON.parse(localStorage.getItem(`rummy-invites-${TABLE_ID}`) || "[]")
    .filter((i) => !st.seats[i.seat].joined && st.state === "waiting");
  document.getElementById("invites").replaceChildren(...(invites.length ? [el("p", {}, "Send each link to the person who should sit there (whoever opens it takes the seat):")] : []),
    ...invites.map((i) => { const link = `${location.origin}/tables/${TABLE_ID}#invite=${i.invite}`;
      return el("div", {class: "invite", dataset: {seat: i.seat}}, `seat ${i.seat}: `, el("input", {readonly: true, value: link, class: "link"})); }));
}

function statusText(data) {
  const me = mySeat();
  if (data.over) return ["The game is over.", false];
  if (me && me.agent_plays) return [`You are away: ${me.agent} plays your seat until you take it back.`, false];
  if (data.to_move === data.you && data.moves.length) {
    return [el("span", {}, `Your turn: ${promptText(data)}.`, el("span", {id: "turn-clock", class: "muted"})), true];
  }
  const seat = message.status.seats[data.to_move];
  const who = data.names[data.to_move];
  return [seat.person && !seat.agent_plays ? `${who} is to move` : el("span", {class: "thinking"}, `${who} is thinking`), false];
}

function render() {
  renderSeating();
  const data = message.table;
  const felt = document.getElementById("table");
  felt.hidden = data === null;
  if (data !== null) {
    const [text, yours] = statusText(data);
    felt.replaceChildren(...feltNodes(data, el("div", {class: "status" + (yours ? " yours" : "")}, text), play));
    felt.dataset.state = data.over ? "over" : yours ? "yours" : "others";
    showClock();
    const deal = data.over && data.deal !== null ? el("span", {class: "muted", id: "deal"}, ` deal ${data.deal}`) : null;
    const after = data.over ? [el("a", {href: "/lobby"}, "back to the lobby"), " ", rematchButton()] : null;
    const showdown = showdownEl(data, after, deal);
    document.getElementById("showdowns").replaceChildren(...(showdown ? [showdown] : []));
    document.getElementById("log").replaceChildren(...logLines(data));
  }
  felt.dataset.version = String(++version);
  document.getElementById("seating").dataset.state = message.status.state;
}

// Once the game is over, a seat's person may play again with the same settings: the first
// to ask opens the new table and sits there; the others join their own seats there.
function rematchButton() {
  if (!mySeat()) return null;
  const label = message.status.rematch ? "Join the rematch" : "Play again (same settings)";
  return el("button", {class: "action", id: "rematch", type: "button", onclick: rematch}, label);
}

async function rematch() {
  try {
    const made = await api("POST", `/api/tables/${TABLE_ID}/rematch`, {token});
    localStorage.setItem(`rummy-seat-${made.id}`, made.token);
    location.href = `/tables/${made.id}`;
  } catch (e) {
    showError(e.message);
  }
}

function main() {
  document.getElementById("join-name").value = localStorage.getItem("rummy-name") || "";
  document.getElementById("join").addEventListener("submit", join);
  document.getElementById("ready").addEventListener("click", () => send("ready", {ready: !mySeat().ready}));
  document.getElementById("leave").addEventListener("click", () => send("leave"));
  document.getElementById("back").addEventListener("click", () => send("back"));
  setInterval(showClock, 1000);
  connect();
}

main();
