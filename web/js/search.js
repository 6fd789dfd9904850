// Search from the Ask view: one result per note, its best passage with the query's words marked.
// The daemon sends the words' places as character ranges; the marks are built here as <mark>
// elements around text nodes, so a note's text is never parsed as HTML.

import { getJSON } from "./api.js";
import { openSource } from "./ask.js";
import { $, el, show, showMessage } from "./ui.js";

export function initSearch() {
  $("#search-button").addEventListener("click", search);
  $("#search-close").addEventListener("click", () => show($("#search-results"), false));
}

async function search() {
  const query = $("#ask-text").value.trim();
  const message = $("#ask-message");
  if (!query) {
    showMessage(message, "Type some words to search for first.", "warn");
    return;
  }
  show(message, false);
  $("#search-button").disabled = true;
  try {
    const body = await getJSON(`/api/search?q=${encodeURIComponent(query)}&limit=10`);
    render(query, body);
  } catch (error) {
    showMessage(message, error.message, "error");
  } finally {
    $("#search-button").disabled = false;
  }
}

function render(query, body) {
  const results = body.results || [];
  $("#search-title").textContent = results.length
    ? `Notes matching “${query}”`
    : `No notes match “${query}”`;
  const notice = $("#search-notice");
  notice.textContent = body.notice || "";
  show(notice, Boolean(body.notice));
  $("#search-list").replaceChildren(...results.map(resultItem));
  show($("#search-results"), true);
}

function resultItem(result) {
  const heading = result.heading ? result.heading.split(" > ").pop() : "";
  // A PDF's passage is named by its page: "Manual.pdf, page 4".
  const title = result.attachment
    ? result.label
    : heading && heading !== result.title ? `${result.title} › ${heading}` : result.title;
  const where = [result.path, result.note_date].filter(Boolean).join(" · ");
  return el("li", {}, [
    el("button", { type: "button", className: "source search-hit", onclick: () => openSource(result) }, [
      el("span", { className: "result-title", text: title }),
      el("span", { className: "result-where", text: where }),
      el("span", { className: "snippet" }, marked(result.snippet || "", result.marks || [])),
    ]),
  ]);
}

// The snippet as text nodes, with each [start, end) range in a <mark>.
export function marked(text, marks) {
  const nodes = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at || end > text.length || start >= end) continue;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    nodes.push(el("mark", { text: text.slice(start, end) }));
    at = end;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}
