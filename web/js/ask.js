// The Ask view: a question, the answer as it streams, then the checked answer with its sources.
// The streamed text is only a preview: the checked answer replaces it when it arrives.

import { ApiError, getJSON, postStream } from "./api.js";
import { dayLog, saveDayLog } from "./store.js";
import { $, el, show, showMessage } from "./ui.js";

let current = null; // the source shown in the sheet

export function initAsk() {
  $("#ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    ask();
  });
  $("#source-close").addEventListener("click", () => show($("#source-sheet"), false));
  $("#source-more").addEventListener("click", showWholeNote);
  renderAnswers();
}

async function ask() {
  const input = $("#ask-text");
  const question = input.value.trim();
  const message = $("#ask-message");
  if (!question) {
    showMessage(message, "Type a question first.", "warn");
    return;
  }
  show(message, false);
  closeSource(); // a new answer: the sheet of an old source must not cover it
  $("#ask-button").disabled = true;
  const card = answerCard({ question, answer: "", sources: [], findings: [] }, true);
  $("#answers").prepend(card);
  const body = card.querySelector(".answer");
  let final = null;
  let waiting = false; // the model is busy with other work: the question waits its turn
  try {
    await postStream("/api/ask?stream=1", { question }, (event) => {
      if (event.type === "waiting") {
        body.textContent = event.text;
        waiting = true;
      } else if (event.type === "delta") {
        if (waiting) body.textContent = "";
        waiting = false;
        body.textContent += event.text;
      } else if (event.type === "answer") final = event;
      else if (event.type === "error") throw new ApiError(event.error.message, { code: event.error.code });
    });
    if (!final) throw new Error("The answer stopped before it was complete. Try again.");
    input.value = "";
    const log = dayLog();
    log.answers.unshift({ ...final, at: new Date().toISOString() });
    saveDayLog(log);
    card.replaceWith(answerCard(final, false));
  } catch (error) {
    card.remove();
    showMessage(message, forPhone(error), "error");
  } finally {
    $("#ask-button").disabled = false;
  }
}

// The daemon's sentence is written for the computer ("start its server ..."), where nobody
// holding a phone can act on it: this says what it means for them.
const MODEL_DOWN = "Your computer's model isn't running, so there is no answer now. Your captures are saved and will be filed later.";
export function forPhone(error) {
  const code = (error && error.code) || "";
  if (code === "model_unavailable" || code === "ollama_unavailable") return MODEL_DOWN;
  if (code === "model_missing") return "Your computer is missing the model that answers. Your captures are saved and will be filed later.";
  return error.message;
}

export function renderAnswers() {
  const list = $("#answers");
  list.replaceChildren(...dayLog().answers.map((a) => answerCard(a, false)));
}

function answerCard(answer, pending) {
  const sources = answer.sources || [];
  const byNumber = new Map(sources.map((s) => [s.n, s]));
  const text = el("div", { className: pending ? "answer pending" : "answer" });
  if (!pending) appendWithCitations(text, answer.answer, byNumber);
  const children = [el("p", { className: "question", text: answer.question }), text];
  if (sources.length) {
    children.push(
      el(
        "ol",
        { className: "sources" },
        sources.map((s) =>
          el("li", {}, [
            el("button", {
              type: "button",
              className: "source",
              text: sourceLabel(s),
              onclick: () => openSource(s),
            }),
          ]),
        ),
      ),
    );
  }
  for (const finding of answer.findings || []) {
    children.push(el("p", { className: "finding", text: finding }));
  }
  return el("article", { className: "card" }, children);
}

function sourceLabel(source) {
  if (source.attachment) return `[${source.n}] ${source.label}`;
  const heading = source.heading ? source.heading.split(" > ").pop() : "";
  const where = heading && heading !== source.title ? ` › ${heading}` : "";
  return `[${source.n}] ${source.title}${where}`;
}

// "[2]" in the answer becomes a button that opens source 2; everything else stays plain text.
function appendWithCitations(node, text, byNumber) {
  const parts = String(text || "").split(/(\[\d+\])/);
  for (const part of parts) {
    const match = /^\[(\d+)\]$/.exec(part);
    const source = match && byNumber.get(Number(match[1]));
    if (source) {
      node.append(el("button", { type: "button", className: "cite", text: part, onclick: () => openSource(source) }));
    } else if (part) {
      node.append(document.createTextNode(part));
    }
  }
}

export function closeSource() {
  show($("#source-sheet"), false);
}

// Markdown's marks taken out of a passage shown to read: `**Rachel Dunne**` is Rachel Dunne,
// `[[Physio Plan]]` is Physio Plan. The note itself is untouched ("Show the whole note").
export function plain(text) {
  return String(text)
    .replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
    .replace(/!?\[\[([^\]]*)\]\]/g, "$1")
    .replace(/\[([^\]]*)\]\((?:[^)\s]*)\)/g, "$1")
    .replace(/(\*\*|~~)/g, "")
    .replace(/^#{1,6}\s+/gm, "");
}

export function openSource(source) {
  current = source;
  $("#source-title").textContent = source.attachment ? source.label : source.title;
  $("#source-where").textContent = [source.path, source.heading, source.note_date].filter(Boolean).join(" · ");
  $("#source-text").textContent = plain(source.text || "");
  show($("#source-more"), !source.attachment); // a PDF or image has no note text to show
  show($("#source-sheet"), true);
}

async function showWholeNote() {
  if (!current) return;
  try {
    const note = await getJSON(`/api/note?path=${encodeURIComponent(current.path)}`);
    $("#source-text").textContent = note.text;
    show($("#source-more"), false);
  } catch (error) {
    $("#source-where").textContent = error.message;
  }
}
