// The lobby: the open tables (GET /api/tables, again every few seconds) and a form to open
// one (POST /api/tables). The browser keeps your name, and the seat token of each table you
// sit at (localStorage), so the table's page finds your seat again after a reload.
"use strict";

let OPTIONS = null;
const form = document.getElementById("create");

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

function gameOf() {
  return OPTIONS.games.find((g) => g.name === document.getElementById("create-game").value);
}

// Refill what depends on the game: players, rules, length, and a picker per seat (the
// first two seats for people, the others the game's default agent).
function update() {
  const game = gameOf();
  const players = document.getElementById("create-players");
  const count = Number(players.value) || game.min_players;
  const counts = [];
  for (let n = game.min_players; n <= game.max_players; n++) counts.push([String(n), String(n)]);
  fill(players, counts, String(Math.min(Math.max(count, game.min_players), game.max_players)));
  const preset = fillRules(document.getElementById("create-rules"), game);
  const episode = document.getElementById("create-episode");
  fill(episode, preset.match ? [["hand", "one hand"], ["match", "a match"]] : [["hand", "one hand"]], episode.value || "hand");
  document.getElementById("create-agent-names").replaceChildren(...game.agents.map((a) => el("option", {value: a})));
  const box = document.getElementById("create-seats");
  const old = form.dataset.game === game.name ? Array.from(box.querySelectorAll("div.seat")).map(chosen) : [];
  form.dataset.game = game.name;
  box.replaceChildren(...Array.from({length: Number(players.value)}, (_, k) =>
    seatPicker("create", k, `seat ${k}`, game, old[k] || (k < 2 ? "person" : game.default_agent), true)));
}

async function create(event) {
  event.preventDefault();
  // with accounts on, the seat's name is the account's: no name is sent
  const name = ACCOUNT.accounts ? "" : document.getElementById("create-name").value.trim();
  if (name) localStorage.setItem("rummy-name", name);
  const body = {game: gameOf().name, players: Number(document.getElementById("create-players").value),
    rules: document.getElementById("create-rules").value, episode: document.getElementById("create-episode").value,
    seats: Array.from(document.querySelectorAll("#create-seats div.seat")).map(chosen),
    takeover: Number(document.getElementById("create-takeover").value),
    pace: Number(document.getElementById("create-pace").value),
    turn_limit: Number(document.getElementById("create-turn-limit").value)};
  if (name) body.name = name;
  const button = document.getElementById("create-start");
  try {
    button.disabled = true;
    const made = await api("POST", "/api/tables", body);
    localStorage.setItem(`rummy-seat-${made.id}`, made.token);
    localStorage.setItem(`rummy-invites-${made.id}`, JSON.stringify(made.invites));
    location.href = `/tables/${made.id}`;
  } catch (e) {
    showError(e.message);
    button.disabled = false;
  }
}

function seatText(s) {
  if (!s.person) return `${s.agent} (agent)`;
  return s.joined ? s.name + (s.ready ? "" : " (not ready)") : "free seat";
}

async function refresh() {
  try {
    const answer = await api("GET", "/api/tables");
    const body = document.querySelector("#tables tbody");
    const rows = answer.tables.map((t) => {
      const mine = localStorage.getItem(`rummy-seat-${t.id}`) !== null;
      return el("tr", {dataset: {id: t.id}}, el("td", {}, t.title), el("td", {}, `${t.rules}, ${t.episode === "match" ? "a match" : "one hand"}`),
        el("td", {}, t.seats.map(seatText).join(", ")), el("td", {}, t.state),
        el("td", {}, el("a", {href: `/tables/${t.id}`}, mine ? "your seat" : "watch")));
    });
    body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", {colspan: 5}, "no open table: open one"))]));
  } catch (e) {
    showError(e.message);
  }
}

async function main() {
  OPTIONS = await api("GET", "/api/options");
  document.getElementById("create-name").value = localStorage.getItem("rummy-name") || "";
  fill(document.getElementById("create-game"), OPTIONS.games.map((g) => [g.name, g.title]), "gin");
  for (const id of ["create-game", "create-players", "create-rules"]) document.getElementById(id).addEventListener("change", update);
  update();
  form.addEventListener("submit", create);
  await refresh();
  setInterval(refresh, 5000);
}

main().catch((e) => showError(e.message));
