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

export function addToOutbox(text, via, { fetchPage = false } = {}) {
  const item = { id: newId(), text, via, captured: new Date().toISOString(), error: "" };
  if (fetchPage) item.fetchPage = true; // the page's text is saved too: the daemon fetches it
  write(OUTBOX_KEY, [...outbox(), item]);
  return item;
}

export function removeFromOutbox(id) {
  write(OUTBOX_KEY, outbox().filter((item) => item.id !== id));
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
