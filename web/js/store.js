// What the page keeps on the phone (localStorage).
//
// The outbox: every capture is put here BEFORE it is sent and removed only when the daemon has
// said where it saved it, so a capture typed on a train with no signal is never lost. Each has
// an id the daemon uses to save a resent capture once, and the time it was written.
//
// The day log: messages and answers shown on the page; cleared when the day changes.

import { dayOf } from "./when.js";

const OUTBOX_KEY = "commonplace.outbox";
const LOG_KEY = "commonplace.log";
const DRAFT_KEY = "commonplace.draft";

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch (ignored) {
    return fallback;
  }
}

function write(key, value) {
  localStorage.setItem(key, JSON.stringify(value));
}

// The day on the daemon's clock (when.js): "Saved today" is the vault's today, wherever the phone is.
export function today() {
  return dayOf(new Date());
}

function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// -- outbox --------------------------------------------------------------------------------------

export function outbox() {
  const items = read(OUTBOX_KEY, []);
  return Array.isArray(items) ? items : [];
}

// A photo goes with its capture: its bytes are kept in IndexedDB (localStorage holds text, and
// a few MB at most), under the capture's id, before the capture is put in the outbox.
// `fetchPage`: the linked page's text is saved too (the daemon fetches it).
export async function addToOutbox(text, via, photo = null, { fetchPage = false } = {}) {
  const item = { id: newId(), text, via, captured: new Date().toISOString(), error: "" };
  if (fetchPage) item.fetchPage = true;
  if (photo) {
    await savePhoto(item.id, photo);
    item.photo = { name: photo.name || "photo", type: photo.type || "", size: photo.size };
  }
  write(OUTBOX_KEY, [...outbox(), item]);
  return item;
}

export function removeFromOutbox(id) {
  const item = outbox().find((entry) => entry.id === id);
  write(OUTBOX_KEY, outbox().filter((entry) => entry.id !== id));
  if (item && item.photo) deletePhoto(id).catch(() => {});
}

// -- photos waiting to be sent (IndexedDB) ----------------------------------------------------------

const PHOTO_DB = "commonplace-photos";
const PHOTO_STORE = "photos";

function photoDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(PHOTO_DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(PHOTO_STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function photoRequest(mode, act) {
  const db = await photoDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(PHOTO_STORE, mode);
      const request = act(tx.objectStore(PHOTO_STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export function savePhoto(id, blob) {
  return photoRequest("readwrite", (store) => store.put(blob, id));
}

export function loadPhoto(id) {
  return photoRequest("readonly", (store) => store.get(id));
}

export function deletePhoto(id) {
  return photoRequest("readwrite", (store) => store.delete(id));
}

export function markOutbox(id, error) {
  write(OUTBOX_KEY, outbox().map((item) => (item.id === id ? { ...item, error } : item)));
}

// -- the text being written -------------------------------------------------------------------------

export function loadDraft() {
  return localStorage.getItem(DRAFT_KEY) || "";
}

export function saveDraft(text) {
  if (text) localStorage.setItem(DRAFT_KEY, text);
  else localStorage.removeItem(DRAFT_KEY);
}

// -- the day's log ---------------------------------------------------------------------------------

export function dayLog() {
  const log = read(LOG_KEY, null);
  if (!log || log.day !== today()) {
    return { day: today(), captures: [], answers: [] };
  }
  return log;
}

export function saveDayLog(log) {
  write(LOG_KEY, { ...log, day: today() });
}

export function clearDayLog() {
  write(LOG_KEY, { day: today(), captures: [], answers: [] });
}

export function isNewDay() {
  const log = read(LOG_KEY, null);
  return Boolean(log && log.day !== today());
}
