// The start page's and the lobby's choices: a select's options, and a picker per seat.
"use strict";

function fill(select, values, chosen) {
  select.replaceChildren(...values.map(([value, text]) => el("option", {value, selected: value === chosen}, text)));
}

// One seat's agent: a level of the game (weakest first), one of its agents or the operator's,
// or "other" with a spec typed (options after a colon, e.g. mcts:simulations=50); with
// ``people``, "a person" first (a people's table). Its datalist is #KIND-agent-names.
function seatPicker(kind, k, label, game, value, people) {
  const id = `${kind}-agent-${k}`;
  const groups = [
    ["People", people ? [["person", "a person (invite someone)"]] : []],
    ["Levels", game.levels.map((l) => [l.name, `${l.name} (${l.agent})`])],
    ["Agents", game.agents.filter((a) => !game.levels.some((l) => l.name === a)).map((a) => [a, a])],
  ];
  const known = groups.some(([, items]) => items.some(([v]) => v === value));
  const select = el("select", {id, class: "agent"},
    ...groups.filter(([, items]) => items.length).map(([name, items]) =>
      el("optgroup", {label: name}, ...items.map(([v, text]) => el("option", {value: v, selected: v === value}, text)))),
    el("option", {value: "", selected: !known}, "other (type a spec)"));
  const spec = el("input", {id: `${kind}-spec-${k}`, class: "spec", list: `${kind}-agent-names`, autocomplete: "off",
    placeholder: "e.g. mcts:simulations=50", value: known ? "" : value, hidden: known});
  select.addEventListener("change", () => { spec.hidden = select.value !== ""; });
  return el("div", {class: "seat"}, el("label", {for: id}, label), select, spec);
}

// What a seat's picker asks for: the agent chosen, else the spec typed.
function chosen(seat) {
  const select = seat.querySelector("select.agent");
  return select.value !== "" ? select.value : seat.querySelector("input.spec").value.trim();
}


// The rules picker of ``game``: its presets (the one chosen kept while the game has it), the
// chosen preset's description under it (the game's own, from GET /api/options); returns the preset.
function fillRules(select, game) {
  fill(select, game.presets.map((p) => [p.name, p.name]),
    game.presets.some((p) => p.name === select.value) ? select.value : game.default_preset);
  const preset = game.presets.find((p) => p.name === select.value);
  const note = document.getElementById(`${select.id}-note`);
  if (note) note.textContent = preset.note;
  return preset;
}
