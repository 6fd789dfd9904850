// The Capture view: type or dictate, check, send. Sending goes through the outbox.

import { ApiError, getJSON, postForm, postJSON } from "./api.js";
import { initDictation } from "./dictate.js";
import {
  addToOutbox,
  dayLog,
  loadDraft,
  loadPhoto,
  markOutbox,
  outbox,
  removeFromOutbox,
  saveDayLog,
  saveDraft,
} from "./store.js";
import { $, el, show, showMessage } from "./ui.js";
import { clockTime } from "./when.js";

const RETRY_MS = 15000;
let flushing = false;
let outboxMessage = false; // the capture message currently shown is the outbox's
let retryTimer = null;
let via = "phone";

let photo = null; // the photo chosen for the next capture (a File), or null

export function initCapture(onChange) {
  $("#send").addEventListener("click", () => sendCapture(onChange));
  $("#capture-photo").addEventListener("change", (event) => {
    const file = event.target.files && event.target.files[0];
    setPhoto(file || null);
  });
  $("#photo-clear").addEventListener("click", () => setPhoto(null));
  initDictation((text) => {
    const box = $("#capture-text");
    box.value = box.value.trim() ? `${box.value.trimEnd()}\n${text}` : text;
    saveDraft(box.value);
    setVia("dictation");
    box.focus();
  });
  const box = $("#capture-text");
  box.value = loadDraft();
  box.addEventListener("input", () => {
    saveDraft(box.value); // a half-written note survives the app being closed
    if (!box.value.trim()) setVia("phone");
    showFetchToggle();
  });
  showFetchToggle();
  renderLog();
  renderOutbox();
}

// "Also save the page's text": offered only when the words hold a link; off for every new one.
function showFetchToggle() {
  const hasLink = /https?:\/\/\S/i.test($("#capture-text").value);
  show($("#fetch-page-row"), hasLink);
  if (!hasLink) $("#fetch-page").checked = false;
}

function setPhoto(file) {
  photo = file;
  if (!file) $("#capture-photo").value = "";
  const name = $("#photo-name");
  name.textContent = file ? `Photo: ${file.name || "from the camera"} (${Math.max(1, Math.round(file.size / 1024))} KB)` : "";
  show(name, Boolean(file));
  show($("#photo-clear"), Boolean(file));
  $("#photo-pick").textContent = file ? "Another photo" : "Add a photo";
}

function setVia(value) {
  via = value;
  show($("#dictation-hint"), value === "dictation");
}

async function sendCapture(onChange) {
  const box = $("#capture-text");
  const text = box.value;
  if (!text.trim() && !photo) {
    showMessage($("#capture-message"), "Write something first.", "warn");
    return;
  }
  const fetchPage = $("#fetch-page").checked && /https?:\/\/\S/i.test(text);
  try {
    // kept on the phone first: nothing is lost if sending fails
    await addToOutbox(text, via, photo, { fetchPage });
  } catch (error) {
    showMessage($("#capture-message"), "This phone could not keep the photo (its storage is full?). Nothing was sent.", "error");
    return;
  }
  setPhoto(null);
  show($("#capture-message"), false); // an earlier message is about an earlier attempt
  outboxMessage = false;
  box.value = "";
  saveDraft("");
  setVia("phone");
  showFetchToggle();
  if (await flushOutbox()) onChange();
}

// Send everything in the outbox, oldest first. Safe to call often; one run at a time.
// Returns how many were saved.
export async function flushOutbox() {
  if (flushing) return 0;
  flushing = true;
  let lastError = null;
  let saved = 0;
  try {
    for (const item of outbox()) {
      if (item.error) continue; // refused by the daemon: waits for the user
      try {
        const result = item.photo
          ? await sendPhoto(item)
          : await postJSON("/api/capture", {
              text: item.text,
              via: item.via,
              id: item.id,
              captured: item.captured,
              ...(item.fetchPage ? { fetch_page: true } : {}),
            });
        removeFromOutbox(item.id);
        saved += 1;
        logCapture(item.photo ? `📷 ${item.text}`.trim() : item.text, result.path, item.captured, result.capture);
      } catch (error) {
        lastError = error;
        if (error instanceof ApiError && !error.offline && error.status >= 400 && error.status < 500 && error.status !== 403) {
          markOutbox(item.id, error.message);
          continue;
        }
        break; // offline or the daemon is unwell: keep the rest in order, try later
      }
    }
  } finally {
    flushing = false;
  }
  renderOutbox();
  const waiting = outbox().filter((item) => !item.error).length;
  if (lastError && lastError.offline) {
    showMessage(
      $("#capture-message"),
      `Kept on this phone: ${waiting} waiting. It will be sent when the daemon is back.`,
      "warn",
    );
    outboxMessage = true;
  } else if (lastError) {
    showMessage($("#capture-message"), lastError.message, "error");
    outboxMessage = true;
  } else if (outboxMessage) {
    // Clear only what the outbox said: a dictation or "write something" message stays.
    show($("#capture-message"), false);
    outboxMessage = false;
  }
  clearTimeout(retryTimer);
  if (waiting) retryTimer = setTimeout(flushOutbox, RETRY_MS);
  return saved;
}

// A capture with a photo: a multipart form with the photo kept in IndexedDB.
async function sendPhoto(item) {
  const blob = await loadPhoto(item.id);
  if (!blob) throw new ApiError("The photo of this capture is no longer on this phone.", { status: 410 });
  const form = new FormData();
  form.append("text", item.text);
  form.append("via", item.via);
  form.append("id", item.id);
  form.append("captured", item.captured);
  form.append("photo", blob, item.photo.name || "photo");
  return postForm("/api/capture/photo", form);
}

// `at`: when it was written on the phone, which the daemon dates the capture by (its name).
// `capture`: the daemon's "<id>@<minute>", by which it says later where the capture was filed.
export function logCapture(text, path, at, capture = "") {
  const log = dayLog();
  log.captures.unshift({ text: text.slice(0, 280), path, at: at || new Date().toISOString(), capture });
  saveDayLog(log);
  renderLog();
}

// "Saved today" said Inbox/... long after the capture had been filed somewhere else: ask the
// daemon where the ones not yet known were filed, and show that instead.
export async function checkFiled() {
  const waiting = dayLog().captures.filter((entry) => entry.capture && !entry.filed);
  if (!waiting.length) return;
  const ids = waiting.slice(0, 30).map((entry) => entry.capture).join(",");
  let found;
  try {
    found = (await getJSON(`/api/capture/filed?ids=${encodeURIComponent(ids)}`)).filed || {};
  } catch (ignored) {
    return; // asked again at the next refresh
  }
  const log = dayLog();
  let changed = false;
  for (const entry of log.captures) {
    const where = entry.capture && found[entry.capture.split("@")[0]];
    if (where && !entry.filed) {
      entry.filed = where;
      changed = true;
    }
  }
  if (changed) {
    saveDayLog(log);
    renderLog();
  }
}

export function renderLog() {
  const list = $("#capture-log");
  const entries = dayLog().captures;
  show($("#capture-log-title"), entries.length > 0);
  list.replaceChildren();
  for (const entry of entries) {
    const time = clockTime(entry.at); // the daemon's zone, as the capture's name is
    list.append(
      el("li", { className: "saved" }, [
        el("span", {
          className: "when",
          text: `${time ? `${time} · ` : ""}${entry.filed ? `filed as ${entry.filed}` : `saved to ${entry.path}`}`,
        }),
        el("p", { className: "words", text: entry.text }),
      ]),
    );
  }
}

export function renderOutbox() {
  const items = outbox();
  show($("#outbox"), items.length > 0);
  $("#outbox-summary").textContent = items.length
    ? `${items.length} not sent yet. They are safe here and go out when the daemon answers.`
    : "";
  const list = $("#outbox-list");
  list.replaceChildren();
  for (const item of items) {
    const words = item.photo ? `📷 ${item.photo.name} ${item.text}`.trim() : item.text;
    const children = [el("p", { className: "words", text: words.slice(0, 280) })];
    if (item.error) {
      children.push(el("span", { className: "error-text", text: item.error }));
      children.push(
        el("button", {
          type: "button",
          className: "small",
          text: "Try again",
          onclick: () => {
            markOutbox(item.id, "");
            flushOutbox();
          },
        }),
      );
      children.push(
        el("button", {
          type: "button",
          className: "small",
          text: "Edit",
          onclick: async () => {
            $("#capture-text").value = item.text;
            saveDraft(item.text);
            if (item.photo) {
              // The photo comes back to the box too: removing the item must not lose it.
              const blob = await loadPhoto(item.id);
              if (blob) setPhoto(new File([blob], item.photo.name || "photo", { type: blob.type }));
            }
            removeFromOutbox(item.id);
            renderOutbox();
          },
        }),
      );
    }
    list.append(el("li", { className: item.error ? "failed" : "waiting" }, children));
  }
}
