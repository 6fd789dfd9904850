// Obsidian asking to pair (the plugin's Settings > Pair): the page shows each waiting request
// with its code; the owner checks that Obsidian shows the same code and confirms, or denies.
// Only this page (or `commonplace plugin pair` on the computer) can confirm: never the plugin.

import { getJSON, postJSON } from "./api.js";
import { $, el, show } from "./ui.js";

let shown = "";

export async function renderPairing(waiting) {
  const banner = $("#pair-banner");
  if (!waiting) {
    shown = "";
    show(banner, false);
    return;
  }
  let requests = [];
  try {
    requests = (await getJSON("/api/pair/pending")).requests || [];
  } catch (error) {
    return; // shown again at the next refresh
  }
  const key = requests.map((r) => r.code).join(",");
  if (key === shown && !banner.hidden) return;
  shown = key;
  banner.replaceChildren(...requests.map(requestCard));
  show(banner, requests.length > 0);
}

function requestCard(request) {
  const message = el("span", { className: "pair-message", text: "" });
  const decide = (path, done) => async () => {
    try {
      await postJSON(path, { code: request.code });
      message.textContent = done;
    } catch (error) {
      message.textContent = error.message;
    }
    for (const button of card.querySelectorAll("button")) button.disabled = true;
  };
  const card = el("div", { className: "pair-request" }, [
    el("p", { text: `${request.device} (from ${request.via}) asks to pair. It shows the code:` }),
    el("p", { className: "pair-code", text: request.code }),
    el("p", { className: "hint", text: "Pair only if Obsidian shows this same code." }),
    el("div", { className: "row" }, [
      el("button", { type: "button", className: "primary", onclick: decide("/api/pair/confirm", "Paired.") }, [
        document.createTextNode("Pair"),
      ]),
      el("button", { type: "button", className: "secondary", onclick: decide("/api/pair/deny", "Denied.") }, [
        document.createTextNode("Deny"),
      ]),
    ]),
    message,
  ]);
  return card;
}
