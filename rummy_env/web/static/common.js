// Shared by the pages: calling the API, and drawing cards and small elements.
"use strict";

// Every request that changes something is sent as JSON: the server refuses anything else
// (a page of another origin cannot send JSON without asking first).
async function api(method, path, body) {
  const options = {method, headers: {}};
  if (method !== "GET") {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

// el("div", {class: "x", onclick: f}, child, "text", ...)
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const SUITS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};

// A card's text ("7D", "TD", "JK", "JK:7D" a joker standing for 7D) as a card element.
function cardEl(text, attrs) {
  attrs = Object.assign({}, attrs || {});
  const classes = ["card"];
  let face;
  if (text.startsWith("JK")) {
    classes.push("joker");
    const stands = text.slice(3);
    face = [el("span", {class: "rank"}, "\u2605"), stands ? el("span", {class: "stands"}, cardLabel(stands)) : "joker"];
  } else {
    if (text[1] === "D" || text[1] === "H") classes.push("red");
    face = [el("span", {class: "rank"}, text[0] === "T" ? "10" : text[0]), el("span", {class: "suit"}, SUITS[text[1]])];
  }
  attrs.class = classes.concat(attrs.class ? [attrs.class] : []).join(" ");
  attrs.dataset = Object.assign({card: text}, attrs.dataset || {});
  return el(attrs.onclick ? "button" : "span", attrs, ...face);
}

function cardLabel(text) {
  return (text[0] === "T" ? "10" : text[0]) + SUITS[text[1]];
}

function backs(count) {
  const shown = Math.min(count, 14);
  return el("span", {class: "backs", title: `${count} cards`},
    Array.from({length: shown}, () => el("span", {class: "card back"})), el("span", {class: "count"}, String(count)));
}

function cardRow(cards, attrsOf) {
  return el("span", {class: "cards"}, cards.map((c) => cardEl(c, attrsOf ? attrsOf(c) : undefined)));
}
