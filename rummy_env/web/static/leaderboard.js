// One tournament: ratings with intervals, agents, the cross-table plot, and its games to replay.
"use strict";

const FOLDER = new URLSearchParams(location.search).get("folder") || "";
const SHOWN_GAMES = 200; // the games listed (the first ones of results.jsonl)
const PLOT_TITLES = {"crosstable.png": "Cross-table: share of games won by the row agent",
  "ratings.png": "Ratings with their 95% intervals"};

function fail(e) {
  const box = document.getElementById("error");
  box.textContent = e.message;
  box.hidden = false;
}

function signed(x, digits) {
  return x === null ? "?" : (x >= 0 ? "+" : "") + x.toFixed(digits);
}

// "± 1.2", or a note where one deal gives no interval (the server sends null)
function pm(ci, digits) {
  return ci === null ? " (one deal: no interval)" : ` \u00b1 ${ci.toFixed(digits)}`;
}

async function summary() {
  const s = await api("GET", `/api/records/summary?folder=${encodeURIComponent(FOLDER)}`);
  const c = s.config;
  document.getElementById("heading").textContent = `Leaderboard: ${FOLDER}`;
  document.getElementById("about").textContent = `${c.game || "gin"}, rules ${c.rules}, ${c.mode}, ${c.deals} deals, ` +
    `seed ${c.seed}; ${s.games} games.`;
  const wins = Object.fromEntries(s.ratings.map((r) => [r.agent, r]));
  const rows = document.querySelector("#ratings tbody");
  s.points_ratings.forEach((p, k) => {
    const w = wins[p.agent];
    rows.append(el("tr", {}, el("td", {}, String(k + 1)), el("td", {}, p.agent), el("td", {}, signed(p.rating, 2)),
      el("td", {}, `${signed(p.ci95_low, 2)} .. ${signed(p.ci95_high, 2)}`), el("td", {}, signed(w.rating, 0)),
      el("td", {}, `${signed(w.ci95_low, 0)} .. ${signed(w.ci95_high, 0)}`)));
  });
  const agents = document.querySelector("#agents tbody");
  for (const a of s.agents) {
    agents.append(el("tr", {}, el("td", {}, a.agent), el("td", {}, String(a.games)),
      el("td", {}, `${(100 * a.win_share).toFixed(1)}%${pm(a.win_share_ci95 === null ? null : 100 * a.win_share_ci95, 1)}`),
      el("td", {}, `${signed(a.points, 2)}${pm(a.points_ci95, 2)}`)));
  }
  document.getElementById("plots").replaceChildren(...s.plots.map((name) => el("div", {}, el("h2", {}, PLOT_TITLES[name] || name),
    el("img", {alt: name, src: `/api/records/plot?folder=${encodeURIComponent(FOLDER)}&name=${name}`}))));
}

async function replay(key, button) {
  button.disabled = true;
  try {
    const created = await api("POST", "/api/replays", {folder: FOLDER, key});
    location.href = `/table/${created.id}`;
  } catch (e) {
    fail(e);
    button.disabled = false;
  }
}

// The agent that won a game (its seat's agent, the seat in brackets), or "-" (a tie, no winner).
function winnerName(r) {
  if (r.winner === null || r.winner === undefined) return "-";
  return `${r.players[r.winner]} (seat ${r.winner})`;
}

async function games() {
  const g = await api("GET", `/api/records/games?folder=${encodeURIComponent(FOLDER)}`);
  const rows = document.querySelector("#games tbody");
  for (const r of g.games.slice(0, SHOWN_GAMES)) {
    const button = r.replayable ? el("button", {class: "plain", type: "button", dataset: {key: r.key}}, "replay") : "no moves recorded";
    if (r.replayable) button.addEventListener("click", () => replay(r.key, button));
    rows.append(el("tr", {}, el("td", {}, r.key), el("td", {}, r.players.join(", ")),
      el("td", {class: "winner"}, winnerName(r)), el("td", {}, String(r.hands)), el("td", {}, button)));
  }
  if (g.games.length > SHOWN_GAMES) rows.append(el("tr", {}, el("td", {colspan: 5}, `... and ${g.games.length - SHOWN_GAMES} more`)));
}

summary().catch(fail);
games().catch(fail);
