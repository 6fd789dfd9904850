// The phone page: tabs, the daemon's state, refresh and recovery, the new-day reset.
//
// A Home Screen app has no reload button and can sit in the background for days, so the page
// polls the daemon's state while it is shown, shows when it can't reach it, retries by itself
// with a growing wait, and has its own refresh control. A hidden page (the phone's screen off,
// another tab in front) asks nothing, and asks at once when it is shown again: a tab left open
// in a desktop browser would otherwise wake the daemon every 30 s for as long as it stays open.
// Captures go through the outbox (store.js), which keeps trying while something waits.

import { getJSON } from "./api.js";
import { checkFiled, flushOutbox, initCapture, logCapture, renderLog, renderOutbox } from "./capture.js";
import { setSpeechState } from "./dictate.js";
import { initAsk, renderAnswers } from "./ask.js";
import { initAssistant, refreshAssistant } from "./assistant.js";
import { renderPairing } from "./pair.js";
import { initPush } from "./push.js";
import { initSearch } from "./search.js";
import { flushShares, renderShares } from "./shares.js";
import { clearDayLog, isNewDay } from "./store.js";
import { $, el, show, showMessage } from "./ui.js";
import { setDaemonZone, whenText } from "./when.js";

const POLL_MS = 30000;
const MAX_BACKOFF_MS = 30000;
let failures = 0;
let pollTimer = null;

function showView(name) {
  for (const tab of document.querySelectorAll(".tabs [role=tab]")) {
    const selected = tab.dataset.view === name;
    tab.setAttribute("aria-selected", String(selected));
    show(document.getElementById(`view-${tab.dataset.view}`), selected);
  }
  localStorage.setItem("commonplace.view", name);
  if (name === "assistant") refreshAssistant();
}

function currentView() {
  const tab = document.querySelector(".tabs [aria-selected=true]");
  return tab ? tab.dataset.view : "";
}

function setStatus(kind, text, detail = "", model = "") {
  $("#status-dot").className = `dot ${kind}`;
  $("#status-text").textContent = text;
  $("#status-model").textContent = model; // which model answers: "built-in model · CPU"
  $("#status").title = detail || text; // the whole story, for a long press or a mouse
}

// The model server (/api/state `model`); a daemon before 0.2 sent only `ollama`.
function modelOf(state) {
  const model = state.model || {};
  if ("reachable" in model) return model;
  const old = state.ollama || {};
  return { ...old, backend: "ollama", server: "Ollama", line: old.host ? `Ollama at ${old.host}` : "" };
}

function describe(state) {
  const waiting = state.captures_waiting || 0;
  // Short enough to fit a phone's header beside the title ("captures waiting" was cut off), and
  // saying what waits ("20 waiting" did not); with a problem the count comes first, so it is
  // never the part that is cut. The whole sentence is the status's title.
  const count = `${waiting} in inbox`;
  const waitingText = waiting ? ` · ${count}` : "";
  const first = waiting ? `${count} · ` : "";
  const story = waiting ? `${waiting} capture${waiting > 1 ? "s" : ""} in the inbox, waiting to be filed` : "";
  const told = (problem) => [problem, story].filter(Boolean).join(". ");
  const model = modelOf(state);
  const label = model.label || model.server || "";
  if (!model.reachable) {
    const which = model.backend === "builtin" ? "The built-in model" : `Your computer's model (${model.server})`;
    return ["warn", `${first}model off`, told(`${which} isn't running`), label];
  }
  const missing = Object.entries(model.models || {}).filter(([, installed]) => !installed);
  if (missing.length) {
    return ["warn", `${first}model missing`, told(`Model ${missing[0][0]} not installed`), label];
  }
  return ["ok", `Ready${waitingText}`, story, label];
}

// The header again, at once: a capture just sent is one more in the inbox (the count stayed as
// it was until the next poll, 30 s later).
async function recount() {
  try {
    const state = await getJSON("/api/state");
    setStatus(...describe(state));
    renderDetails(state);
  } catch (ignored) {
    // the next refresh says what is wrong
  }
}

function modelText(model) {
  if (!model.reachable) return model.error || "not reachable";
  return model.why ? `${model.line} (${model.why})` : model.line;
}

function renderDetails(state) {
  const rows = [
    ["Vault", state.daemon.vault],
    ["Model", modelText(modelOf(state))],
    ["In the inbox", `${state.captures_waiting} capture${state.captures_waiting === 1 ? "" : "s"} waiting to be filed`],
    ["Dictation", state.speech.available ? "ready" : `off: ${state.speech.message}`],
    ["Last job", state.daemon.jobs.last || "none yet"],
  ];
  const index = state.index || {};
  const lastIndex = index.last_refresh || index.last;
  if (lastIndex) rows.push(["Last index", whenText(lastIndex, state.server_time)]);
  for (const note of state.daemon.notes || []) rows.push(["Note", note]);
  for (const item of state.attention_summary || state.attention || []) {
    const where = item.path ? `${item.path}: ` : "";
    rows.push(["Needs attention", `${where}${item.reason}${item.action ? `; ${item.action}` : ""}`]);
  }
  $("#state-details").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
}

async function refresh() {
  clearTimeout(pollTimer);
  newDayCheck();
  try {
    const state = await getJSON("/api/state");
    failures = 0;
    show($("#offline-banner"), false);
    if (setDaemonZone(state.daemon.timezone)) {
      newDayCheck(); // "today" is the daemon's day: it may have begun or ended with the zone
      renderLog();
    }
    setStatus(...describe(state));
    setSpeechState(state.speech);
    renderDetails(state);
    await renderPairing(state.pairing_waiting || 0);
    if (currentView() === "assistant") refreshAssistant();
    const sent = ((await flushOutbox()) || 0) + ((await flushShares(logCapture)) || 0);
    if (sent) await recount();
    await checkFiled();
    schedule(POLL_MS);
  } catch (error) {
    failures += 1;
    const wait = Math.min(MAX_BACKOFF_MS, 2000 * 2 ** Math.min(failures - 1, 4));
    setStatus("down", "Daemon not reachable");
    $("#offline-text").textContent = `${error.message} Retrying in ${Math.round(wait / 1000)} s…`;
    show($("#offline-banner"), true);
    renderOutbox();
    renderShares(logCapture, true);
    schedule(wait);
  }
}

function schedule(ms) {
  clearTimeout(pollTimer);
  pollTimer = document.visibilityState === "hidden" ? null : setTimeout(refresh, ms);
}

function newDayCheck() {
  if (isNewDay()) {
    clearDayLog();
    renderLog();
    renderAnswers();
  }
}

function sharedMessage(shared, query) {
  const message = $("#capture-message");
  if (shared === "saved") {
    const path = query.get("path") || "";
    if (!query.get("repeat")) logCapture("Shared from another app", path, new Date().toISOString(), query.get("capture") || "");
    showMessage(message, `Shared into your inbox: saved to ${path}. It will be filed when your computer tidies it.`, "ok");
  } else if (shared === "failed") {
    const why = query.get("why");
    showMessage(message, why ? `The share was not saved: ${why}` : "The share could not be read; share it again.", "error");
  } else {
    showMessage(message, "Saving what you shared…", "info");
    message.dataset.share = "saving"; // until it is sent, or known to be kept
  }
}

function init() {
  for (const tab of document.querySelectorAll(".tabs [role=tab]")) {
    tab.addEventListener("click", () => showView(tab.dataset.view));
  }
  newDayCheck();
  initCapture(recount);
  initAsk();
  initSearch();
  initAssistant();
  // A tapped morning briefing opens /#assistant; a share from another app opens the capture
  // view, where the page says what became of it: /?shared=<id> when the service worker kept it
  // (sw.js; the page sends it), /?shared=saved&path=... when the daemon got the share itself and
  // saved it (no worker took it: share_target.py), /?shared=failed[&why=...] when it was not.
  const query = new URLSearchParams(location.search);
  const shared = query.get("shared");
  const fromLink = shared ? "capture" : location.hash === "#assistant" ? "assistant" : "";
  showView(fromLink || localStorage.getItem("commonplace.view") || "capture");
  if (shared) {
    history.replaceState(null, "", "/"); // a reload must not look like a second share
    sharedMessage(shared, query);
  }
  $("#refresh").addEventListener("click", refresh);
  $("#retry-now").addEventListener("click", refresh);
  $("#reload").addEventListener("click", () => location.reload());
  $("#clear").addEventListener("click", () => {
    clearDayLog();
    renderLog();
    renderAnswers();
  });
  window.addEventListener("online", refresh);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
    else clearTimeout(pollTimer);
  });
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }
  initPush();
  refresh();
}

init();
