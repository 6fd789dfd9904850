// Search from the Ask view: one result per note, its best passage with the query's words marked.
// The daemon sends the words' places as character ranges; the marks are built here as <mark>
// elements around text nodes, so a note's text is never parsed as HTML.

import { getJSON } from "./api.js";
import { closeSource, openSource } from "./ask.js";
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
  closeSource(); // the sheet was about an earlier result: it must not hide the new ones
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

// The snippet as text nodes, with each [start, end) range in a <mark>. The marks are places in
// the note's own text, so Markdown's marks are taken out of the whole snippet first and the
// ranges moved with them (`**Rachel Dunne**` reads Rachel Dunne, marked where it was).
export function marked(raw, marks) {
  const { text, at: place } = plainWithPlaces(raw);
  const nodes = [];
  let at = 0;
  for (const [rawStart, rawEnd] of marks) {
    if (rawStart < 0 || rawEnd > raw.length || rawStart >= rawEnd) continue;
    const start = place[rawStart];
    const end = place[rawEnd];
    if (start < at || start >= end) continue;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    nodes.push(el("mark", { text: text.slice(start, end) }));
    at = end;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

// plain() of the snippet, with where each raw position lands in it (place[i] for 0..length).
function plainWithPlaces(raw) {
  const keep = new Array(raw.length).fill(true);
  const drop = (start, length) => {
    for (let i = start; i < start + length && i < raw.length; i += 1) keep[i] = false;
  };
  for (const m of raw.matchAll(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g)) {
    drop(m.index, m[0].length - m[2].length - 2); // "[[target|" goes, the alias stays
    drop(m.index + m[0].length - 2, 2);
  }
  for (const m of raw.matchAll(/!?\[\[([^\]|]*)\]\]/g)) {
    drop(m.index, m[0].length - m[1].length - 2);
    drop(m.index + m[0].length - 2, 2);
  }
  for (const m of raw.matchAll(/\[([^\]]*)\]\(([^)\s]*)\)/g)) {
    drop(m.index, 1);
    drop(m.index + 1 + m[1].length, m[0].length - m[1].length - 1);
  }
  for (const m of raw.matchAll(/\*\*|~~/g)) drop(m.index, m[0].length);
  for (const m of raw.matchAll(/^#{1,6}\s+/gm)) drop(m.index, m[0].length);
  let text = "";
  const place = [];
  for (let i = 0; i < raw.length; i += 1) {
    place.push(text.length);
    if (keep[i]) text += raw[i];
  }
  place.push(text.length);
  return { text, at: place };
}
