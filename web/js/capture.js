// The Capture view: type or dictate, check, send. Sending goes through the outbox.

import { ApiError, postAudio, postJSON } from "./api.js";
import { addToOutbox, dayLog, markOutbox, outbox, removeFromOutbox, saveDayLog } from "./store.js";
import { $, el, show, showMessage } from "./ui.js";

const RETRY_MS = 15000;
let flushing = false;
let retryTimer = null;
let via = "phone";
let recorder = null;
let recordTimer = null;
let maxSeconds = 300;

export function initCapture(onChange) {
  $("#send").addEventListener("click", () => sendCapture(onChange));
  $("#dictate").addEventListener("click", () => toggleDictation());
  $("#capture-text").addEventListener("input", () => {
    if (!$("#capture-text").value.trim()) setVia("phone");
  });
  renderLog();
  renderOutbox();
}

export function setSpeechLimits(speech) {
  if (speech && speech.max_seconds) maxSeconds = speech.max_seconds;
}

function setVia(value) {
  via = value;
  show($("#dictation-hint"), value === "dictation");
}

async function sendCapture(onChange) {
  const box = $("#capture-text");
  const text = box.value;
  if (!text.trim()) {
    showMessage($("#capture-message"), "Write something first.", "warn");
    return;
  }
  addToOutbox(text, via); // kept on the phone first: nothing is lost if sending fails
  box.value = "";
  setVia("phone");
  await flushOutbox();
  onChange();
}

// Send everything in the outbox, oldest first. Safe to call often; one run at a time.
export async function flushOutbox() {
  if (flushing) return;
  flushing = true;
  let lastError = null;
  try {
    for (const item of outbox()) {
      if (item.error) continue; // refused by the daemon: waits for the user
      try {
        const result = await postJSON("/api/capture", {
          text: item.text,
          via: item.via,
          id: item.id,
          captured: item.captured,
        });
        removeFromOutbox(item.id);
        logCapture(item.text, result.path);
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
  } else if (lastError) {
    showMessage($("#capture-message"), lastError.message, "error");
  } else {
    show($("#capture-message"), false);
  }
  clearTimeout(retryTimer);
  if (waiting) retryTimer = setTimeout(flushOutbox, RETRY_MS);
}

function logCapture(text, path) {
  const log = dayLog();
  log.captures.unshift({ text: text.slice(0, 280), path, at: new Date().toISOString() });
  saveDayLog(log);
  renderLog();
}

export function renderLog() {
  const list = $("#capture-log");
  list.replaceChildren();
  for (const entry of dayLog().captures) {
    const time = new Date(entry.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    list.append(
      el("li", { className: "saved" }, [
        el("span", { className: "when", text: `${time} · saved to ${entry.path}` }),
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
    const children = [el("p", { className: "words", text: item.text.slice(0, 280) })];
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
          onclick: () => {
            $("#capture-text").value = item.text;
            removeFromOutbox(item.id);
            renderOutbox();
          },
        }),
      );
    }
    list.append(el("li", { className: item.error ? "failed" : "waiting" }, children));
  }
}

// -- dictation -------------------------------------------------------------------------------------

function micMessage(error) {
  const name = error && error.name;
  if (name === "NotAllowedError" || name === "SecurityError" || name === "PermissionDeniedError") {
    return "Microphone access was refused, so dictation can't record. Allow the microphone for this page in your browser's site settings (on iPhone: Settings › Safari › Microphone), then tap Dictate again.";
  }
  if (name === "NotFoundError" || name === "DevicesNotFoundError") {
    return "No microphone was found on this device.";
  }
  if (name === "NotReadableError") {
    return "The microphone is busy in another app. Close it there and try again.";
  }
  return `The microphone could not be started (${name || "unknown error"}).`;
}

function pickType() {
  const types = ["audio/webm;codecs=opus", "audio/mp4", "audio/webm", "audio/ogg;codecs=opus"];
  return types.find((t) => window.MediaRecorder && MediaRecorder.isTypeSupported(t)) || "";
}

async function toggleDictation() {
  if (recorder) {
    recorder.stop();
    return;
  }
  const message = $("#capture-message");
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.MediaRecorder) {
    showMessage(
      message,
      "This browser can't record here. Dictation needs the page opened over https (its ts.net address) or on the computer itself.",
      "error",
    );
    return;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    showMessage(message, micMessage(error), "error");
    return;
  }
  const type = pickType();
  const chunks = [];
  recorder = type ? new MediaRecorder(stream, { mimeType: type }) : new MediaRecorder(stream);
  recorder.addEventListener("dataavailable", (event) => {
    if (event.data && event.data.size) chunks.push(event.data);
  });
  recorder.addEventListener("stop", async () => {
    stream.getTracks().forEach((track) => track.stop());
    clearInterval(recordTimer);
    const blob = new Blob(chunks, { type: (recorder.mimeType || type || "audio/webm").split(";")[0] });
    recorder = null;
    $("#dictate").textContent = "🎤 Dictate";
    await upload(blob);
  });
  const started = Date.now();
  recorder.start(1000);
  $("#dictate").textContent = "■ Stop (0 s)";
  showMessage(message, "Recording… tap Stop when you're done.", "info");
  recordTimer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    $("#dictate").textContent = `■ Stop (${seconds} s)`;
    if (seconds >= maxSeconds && recorder) recorder.stop();
  }, 500);
}

async function upload(blob) {
  const message = $("#capture-message");
  showMessage(message, "Transcribing on your computer…", "info");
  $("#dictate").disabled = true;
  try {
    const result = await postAudio("/api/transcribe", blob);
    const box = $("#capture-text");
    box.value = box.value.trim() ? `${box.value.trimEnd()}\n${result.text}` : result.text;
    setVia("dictation");
    show(message, false);
    box.focus();
  } catch (error) {
    showMessage(message, error.message, "error");
  } finally {
    $("#dictate").disabled = false;
  }
}
