// The players' leaderboard (GET /api/players): each account's games at the tables for
// people, and how it did against each opponent it met; logged in (accounts on), your own
// games (GET /api/account/games), each replayed on the table's page (POST /api/account/replays).
"use strict";

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

function fillRows(id, rows, columns, empty) {
  const body = document.querySelector(`#${id} tbody`);
  const lines = rows.map((row) => el("tr", {}, columns.map((c) => el("td", {}, String(row[c])))));
  body.replaceChildren(...(lines.length ? lines : [el("tr", {}, el("td", {colspan: columns.length}, empty))]));
}

async function replay(game) {
  try {
    const made = await api("POST", "/api/account/replays", {game});
    location.href = `/table/${made.id}`;
  } catch (e) {
    showError(e.message);
  }
}

async function showMine() {
  const account = await api("GET", "/api/account");
  if (!account.name) return;
  const mine = await api("GET", "/api/account/games");
  const body = document.querySelector("#my-games tbody");
  const rows = mine.games.map((g) => el("tr", {dataset: {id: g.id}}, el("td", {}, g.ended.replace("T", " ").slice(0, 16)),
    el("td", {}, g.game), el("td", {}, g.rules), el("td", {}, g.names.map((n, s) => (s === g.seat ? `${n} (you)` : n)).join(", ")),
    el("td", {}, g.points ? g.points.join(" / ") : ""),
    el("td", {}, el("button", {class: "plain replay", type: "button", onclick: () => replay(g.id)}, "Replay"))));
  body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", {colspan: 6}, "none has ended yet"))]));
  document.getElementById("mine").hidden = false;
}

async function main() {
  await showMine();
  const answer = await api("GET", "/api/players");
  fillRows("players", answer.players, ["name", "game", "rules", "games", "won", "drawn", "points", "hands", "hands_won"],
    "no game of an account has ended yet");
  fillRows("opponents", answer.opponents, ["name", "opponent", "game", "rules", "games", "won", "drawn", "points"],
    "none yet");
}

main().catch((e) => showError(e.message));
