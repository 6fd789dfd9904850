// The Assistant view: the day's conversation, the reply as it streams, and each question the
// program asks as a card with Yes and No. The streamed text is a preview: the checked reply
// replaces it. Nothing changes in the vault or the calendar until Yes is pressed here (or in
// the terminal); the model never answers its own questions.
//
// The conversation lives on the computer (one per day), so this view always shows the daemon's
// copy: after a reply, after an answer, when the view is opened and on every refresh.

import { ApiError, getJSON, postJSON, postStream } from "./api.js";
import { $, el, show, showMessage } from "./ui.js";

let busy = false;
let lastDay = "";

export function initAssistant() {
  $("#assistant-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
}

export async function refreshAssistant() {
  if (busy) return;
  try {
    const today = await getJSON("/api/assistant/today");
    render(today);
  } catch (error) {
    if (!(error instanceof ApiError && error.offline)) {
      showMessage($("#assistant-message"), error.message, "error");
    }
  }
}

function render(today) {
  if (today.day !== lastDay) {
    lastDay = today.day;
    show($("#assistant-message"), false);
  }
  renderBriefing(today.briefing);
  const pending = new Set((today.pending || []).map((p) => p.id));
  const answered = new Map();
  for (const m of today.messages) if (m.role === "result") answered.set(m.id, m);
  const items = [];
  for (const m of today.messages) {
    if (m.role === "question") items.push(questionCard(m, pending.has(m.id), answered.get(m.id)));
    else if (m.role !== "result") items.push(bubble(m.role, m.text));
  }
  $("#chat").replaceChildren(...items);
  show($("#chat-empty"), items.length === 0);
}

function renderBriefing(briefing) {
  const node = $("#briefing");
  if (!briefing || !briefing.text) {
    show(node, false);
    return;
  }
  node.replaceChildren(el("h2", { text: "This morning" }), el("p", { text: briefing.text }));
  show(node, true);
}

function bubble(role, text) {
  const kind = { user: "you", assistant: "assistant", error: "failed" }[role] || role;
  return el("li", { className: `bubble ${kind}` }, [el("p", { className: "words", text })]);
}

function questionCard(message, waiting, result) {
  const children = [el("p", { className: "question", text: message.text })];
  // A question another program (an MCP client) asked for: say so, in the daemon's words.
  if (message.asked_by) children.unshift(el("p", { className: "asked-by", text: message.asked_by }));
  if (waiting) {
    const yes = el("button", { type: "button", className: "primary yes", text: "Yes" });
    const no = el("button", { type: "button", className: "secondary no", text: "No" });
    yes.addEventListener("click", () => decide(message.id, "yes", [yes, no]));
    no.addEventListener("click", () => decide(message.id, "no", [yes, no]));
    children.push(el("div", { className: "row answer-buttons" }, [yes, no]));
  } else if (result) {
    const kind = result.ran ? "ran" : "not-run";
    const said = result.answer === "yes" ? "Yes" : "No";
    children.push(el("p", { className: `result ${kind}`, text: `${said}: ${result.text}` }));
  }
  return el("li", { className: "question-card card", "data-id": message.id }, children);
}

async function decide(id, answer, buttons) {
  for (const b of buttons) b.disabled = true;
  const note = $("#assistant-message");
  try {
    await postJSON("/api/assistant/answer", { id, answer });
    show(note, false);
  } catch (error) {
    // 409: the question no longer reads the same, expired, or was answered elsewhere.
    showMessage(note, error.message, error.status === 409 ? "warn" : "error");
  }
  await refreshAssistant();
}

async function send() {
  const input = $("#assistant-text");
  const text = input.value.trim();
  const note = $("#assistant-message");
  if (!text || busy) return;
  busy = true;
  const failedBefore = document.querySelectorAll("#chat .bubble.failed").length;
  show(note, false);
  $("#assistant-send").disabled = true;
  show($("#chat-empty"), false);
  $("#chat").append(bubble("user", text));
  const preview = el("p", { className: "words" });
  const status = el("p", { className: "status-line" });
  const reply = el("li", { className: "bubble assistant pending" }, [status, preview]);
  $("#chat").append(reply);
  reply.scrollIntoView({ block: "end" });
  let final = null;
  try {
    // "page": the program's sentences may point at this view's Yes and No buttons.
    await postStream("/api/assistant/message?stream=1", { text, client: "page" }, (event) => {
      if (event.type === "delta") {
        status.textContent = "";
        preview.textContent += event.text;
      } else if (event.type === "reset") {
        preview.textContent = "";
      } else if (event.type === "status") {
        status.textContent = event.text;
      } else if (event.type === "reply") {
        final = event;
      } else if (event.type === "error") {
        throw new ApiError(event.error.message, { code: event.error.code });
      }
    });
    if (!final) throw new ApiError("The reply stopped before it was complete. Try again.");
    input.value = "";
  } catch (error) {
    showMessage(note, error.message, "error");
  } finally {
    busy = false;
    $("#assistant-send").disabled = false;
  }
  await refreshAssistant();
  const last = $("#chat").lastElementChild;
  if (last) last.scrollIntoView({ block: "end" });
  // The failed turn is in the chat as its own red bubble: the same words again above the box
  // said it twice. The message stays only when the chat could not show it (offline).
  if (document.querySelectorAll("#chat .bubble.failed").length > failedBefore) show(note, false);
}
