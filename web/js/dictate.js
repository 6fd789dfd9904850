// Dictation: record with whatever the browser offers (webm/opus or mp4/aac), upload, and hand
// the transcript back for editing. Nothing is saved here: the user checks the text and sends it.
// A refused or missing microphone always ends in a message, never in silence.

import { postAudio } from "./api.js";
import { $, show, showMessage } from "./ui.js";

let recorder = null;
let recordTimer = null;
let maxSeconds = 300;
let speechProblem = ""; // the daemon's reason dictation can't work, if any
let onText = () => {};

export function initDictation(handleText) {
  onText = handleText;
  $("#dictate").addEventListener("click", () => toggleDictation());
}

// Dictate is offered only while the daemon can transcribe: with dictation off it used to be
// there, and answered a tap with a paragraph about downloading a model (the More view says why
// it is off, and the docs how to turn it on).
export function setSpeechState(speech) {
  if (!speech) return;
  if (speech.max_seconds) maxSeconds = speech.max_seconds;
  speechProblem = speech.available ? "" : speech.message || "Dictation is not available.";
  show($("#dictate"), speech.available || Boolean(recorder));
  $("#capture-text").placeholder = speech.available ? "Write a thought, or dictate one…" : "Write a thought…";
}


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
  if (speechProblem) {
    showMessage(message, speechProblem, "error"); // don't record what can't be transcribed
    return;
  }
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
    $("#dictate").textContent = "Dictate";
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
    show(message, false);
    onText(result.text);
  } catch (error) {
    showMessage(message, error.message, "error");
  } finally {
    $("#dictate").disabled = false;
  }
}
