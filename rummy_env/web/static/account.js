// The account box of the lobby and of a people's table (shown only when the server has
// accounts on: rummy serve --accounts). Logging in sets an HttpOnly cookie that this page
// never sees; the page only asks the server who it is logged in as (GET /api/account).
// With accounts on, a person sits under their account's name: the guest-name fields
// (class guest-name) are hidden, and the buttons that seat someone (data-needs-login)
// wait for a login.
"use strict";

let ACCOUNT = {accounts: false, name: null};

function showAccount(answer) {
  ACCOUNT = {accounts: answer.accounts, name: answer.name};
  document.getElementById("account").hidden = !ACCOUNT.accounts;
  document.getElementById("account-who").hidden = !ACCOUNT.name;
  document.getElementById("account-form").hidden = Boolean(ACCOUNT.name);
  document.getElementById("account-name").textContent = ACCOUNT.name || "";
  for (const node of document.querySelectorAll(".guest-name")) node.hidden = ACCOUNT.accounts;
  for (const node of document.querySelectorAll("[data-needs-login]")) node.disabled = ACCOUNT.accounts && !ACCOUNT.name;
}

async function accountSend(path, body) {
  try {
    showAccount(await api("POST", path, body));
    document.getElementById("account-password").value = "";
    showError("");
  } catch (e) {
    showError(e.message);
  }
}

function credentials() {
  return {name: document.getElementById("account-user").value.trim(),
    password: document.getElementById("account-password").value};
}

document.getElementById("account-form").addEventListener("submit", (event) => {
  event.preventDefault();
  accountSend("/api/account/login", credentials());
});
document.getElementById("account-signup").addEventListener("click", () => {
  if (document.getElementById("account-form").reportValidity()) accountSend("/api/account/signup", credentials());
});
document.getElementById("account-logout").addEventListener("click", () => accountSend("/api/account/logout", {}));
api("GET", "/api/account").then(showAccount, (e) => showError(e.message));
