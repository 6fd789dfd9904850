// Shares from other apps. The service worker keeps each in IndexedDB (sw.js: keepShare); this
// sends them to the daemon as one capture each, oldest first, and removes one only when the
// daemon has said where it saved it. Offline, they wait here and go when the daemon is back.

import { ApiError, postForm } from "./api.js";
import { $, el, show, showMessage } from "./ui.js";

const SHARE_DB = "commonplace-shares";
const KEPT = "The share is kept on this phone. It will be sent when your computer is back.";
let sending = false;

function db() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(SHARE_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore("shares", { keyPath: "id" });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

async function act(mode, fn) {
  const conn = await db();
  try {
    return await new Promise((resolve, reject) => {
      const tx = conn.transaction("shares", mode);
      const request = fn(tx.objectStore("shares"));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    conn.close();
  }
}

export async function pendingShares() {
  if (!("indexedDB" in window)) return [];
  const all = await act("readonly", (store) => store.getAll());
  return (all || []).sort((a, b) => (a.captured < b.captured ? -1 : 1));
}

function summary(share) {
  const words = [share.title, share.text, share.url].filter((part) => part && part.trim()).join(" · ");
  const files = share.files && share.files.length ? ` (${share.files.length} file${share.files.length > 1 ? "s" : ""})` : "";
  return `${words || "Files"}${files}`;
}

// Send every waiting share. onSaved(text, path, at) logs it in "Saved today". Returns how
// many were saved.
export async function flushShares(onSaved) {
  if (sending) return 0;
  sending = true;
  let lastError = null;
  let saved = 0;
  try {
    for (const share of await pendingShares()) {
      if (share.error) continue;
      const form = new FormData();
      for (const name of ["title", "text", "url", "id", "captured"]) form.append(name, share[name] || "");
      form.append("via", "share");
      for (const file of share.files || []) form.append("files", file, file.name || "file");
      try {
        const result = await postForm("/api/share", form);
        await act("readwrite", (store) => store.delete(share.id));
        saved += 1;
        onSaved(summary(share), result.path, share.captured, result.capture);
        showMessage($("#capture-message"), `Shared into your inbox: saved to ${result.path}. It will be filed when your computer tidies it.`, "ok");
        delete $("#capture-message").dataset.share;
      } catch (error) {
        lastError = error;
        if (error instanceof ApiError && !error.offline && error.status >= 400 && error.status < 500 && error.status !== 403) {
          await act("readwrite", (store) => store.put({ ...share, error: error.message }));
          continue;
        }
        break;
      }
    }
  } finally {
    sending = false;
  }
  await renderShares(onSaved);
  if (lastError && lastError.offline) {
    showMessage($("#capture-message"), KEPT, "warn");
  } else if (lastError) {
    showMessage($("#capture-message"), lastError.message, "error");
  }
  return saved;
}

// `offline`: the daemon could not be reached, so a share the page is still "saving" is kept.
export async function renderShares(onSaved, offline = false) {
  let items = [];
  try {
    items = await pendingShares();
  } catch (ignored) {
    items = [];
  }
  show($("#share-outbox"), items.length > 0);
  if (offline && items.some((share) => !share.error) && $("#capture-message").dataset.share === "saving") {
    showMessage($("#capture-message"), KEPT, "warn");
  }
  $("#share-list").replaceChildren(
    ...items.map((share) => {
      const children = [el("p", { className: "words", text: summary(share).slice(0, 280) })];
      if (share.error) {
        children.push(el("span", { className: "error-text", text: share.error }));
        children.push(
          el("button", {
            type: "button",
            className: "small",
            text: "Try again",
            onclick: async () => {
              await act("readwrite", (store) => store.put({ ...share, error: "" }));
              flushShares(onSaved);
            },
          }),
        );
      }
      return el("li", { className: share.error ? "failed" : "waiting" }, children);
    }),
  );
}
