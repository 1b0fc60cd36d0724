// The start page: a game to play, or agents to watch; the choices come from GET /api/options.
"use strict";

let OPTIONS = null;

function gameOf(form) {
  return OPTIONS.games.find((g) => g.name === form.querySelector("[name=game]").value);
}

// Refill the fields that depend on the game (players, rules, seats, agents, length).
function update(form, kind) {
  const game = gameOf(form);
  const players = form.querySelector("[name=players]");
  const count = Number(players.value) || game.min_players;
  const counts = [];
  for (let n = game.min_players; n <= game.max_players; n++) counts.push([String(n), String(n)]);
  fill(players, counts, String(Math.min(Math.max(count, game.min_players), game.max_players)));
  const n = Number(players.value);
  const preset = fillRules(form.querySelector("[name=rules]"), game);
  const episode = form.querySelector("[name=episode]");
  fill(episode, preset.match ? [["hand", "one hand"], ["match", "a match"]] : [["hand", "one hand"]], episode.value || "hand");
  document.getElementById(`${kind}-agent-names`).replaceChildren(...game.agents.map((a) => el("option", {value: a})));
  const seatSelect = form.querySelector("[name=seat]");
  if (seatSelect) fill(seatSelect, [["", "random"]].concat(Array.from({length: n}, (_, s) => [String(s), `player_${s}`])), seatSelect.value);
  const box = document.getElementById(kind === "play" ? "play-opponents" : "watch-agents");
  const seats = kind === "play" ? n - 1 : n;
  // the choices made so far stay while the game stays (another game has other agents)
  const old = form.dataset.game === game.name ? Array.from(box.querySelectorAll("div.seat")).map(chosen) : [];
  form.dataset.game = game.name;
  const label = (k) => kind === "play" ? (seats === 1 ? "Opponent" : `Opponent ${k + 1}`) : `player_${k}`;
  box.replaceChildren(...Array.from({length: seats}, (_, k) => seatPicker(kind, k, label(k), game, old[k] || game.default_agent)));
}

async function start(form, kind) {
  const game = gameOf(form);
  const body = {mode: kind, game: game.name, players: Number(form.querySelector("[name=players]").value),
    rules: form.querySelector("[name=rules]").value, episode: form.querySelector("[name=episode]").value};
  const specs = Array.from(form.querySelectorAll("div.seat")).map(chosen);
  body[kind === "play" ? "opponents" : "agents"] = specs;
  const seedField = form.querySelector("[name=seed]"); // games to watch only: a game to play is dealt secretly
  if (seedField && seedField.value !== "") body.seed = Number(seedField.value);
  if (kind === "play" && form.querySelector("[name=seat]").value !== "") body.seat = Number(form.querySelector("[name=seat]").value);
  const error = document.getElementById("error");
  try {
    form.querySelector("button[type=submit]").disabled = true;
    const created = await api("POST", "/api/games", body);
    location.href = `/table/${created.id}`;
  } catch (e) {
    error.textContent = e.message;
    error.hidden = false;
    form.querySelector("button[type=submit]").disabled = false;
  }
}

async function main() {
  OPTIONS = await api("GET", "/api/options");
  for (const kind of ["play", "watch"]) {
    const form = document.getElementById(kind);
    fill(form.querySelector("[name=game]"), OPTIONS.games.map((g) => [g.name, g.title]), "gin");
    for (const name of ["game", "players", "rules"]) form.querySelector(`[name=${name}]`).addEventListener("change", () => update(form, kind));
    update(form, kind);
    form.addEventListener("submit", (event) => { event.preventDefault(); start(form, kind); });
  }
}

main().catch((e) => { const error = document.getElementById("error"); error.textContent = e.message; error.hidden = false; });
