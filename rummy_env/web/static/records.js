// The records page: the tournament folders the server was started with (GET /api/records).
"use strict";
api("GET", "/api/records").then((answer) => {
  const body = document.querySelector("#folders tbody");
  if (!answer.folders.length) body.append(el("tr", {}, el("td", {colspan: 2}, "no tournament folder found")));
  for (const f of answer.folders) {
    body.append(el("tr", {}, el("td", {}, el("a", {href: `/leaderboard?folder=${encodeURIComponent(f.folder)}`}, f.folder)),
      el("td", {}, f.files.join(", "))));
  }
}).catch((e) => { const box = document.getElementById("error"); box.textContent = e.message; box.hidden = false; });
