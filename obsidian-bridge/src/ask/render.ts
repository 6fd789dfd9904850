// An answer as the daemon checked it: the text with its [n] citations clickable, the numbered
// sources (each opens the note at the cited heading), the refusal sentence shown as a refusal,
// and the daemon's findings (a citation that matches no passage...) shown, never hidden.

import type { Answer, Source } from "../api/types";
import { clear, clickable, el } from "../dom";
import { type NoteOpener, lastHeading, wantsNewTab } from "../links";

const CITATION = /\[(\d+)\]/g;

export function renderPreview(target: HTMLElement, text: string): void {
	clear(target);
	el(target, "div", { cls: "commonplace-preview-label", text: "Writing… (the checked answer replaces this)" });
	el(target, "div", { cls: "commonplace-preview", text });
}

export function renderAnswer(target: HTMLElement, answer: Answer, open: NoteOpener, afterOpen: () => void = () => {}): void {
	clear(target);
	const go = (source: Source, evt: MouseEvent | KeyboardEvent): void => {
		void open(source.path, source.heading, wantsNewTab(evt), source.page);
		afterOpen();
	};
	const byNumber = new Map(answer.sources.map((s) => [s.n, s]));
	const body = el(target, "div", { cls: answer.refused ? "commonplace-answer commonplace-refusal" : "commonplace-answer" });
	if (answer.refused) el(body, "div", { cls: "commonplace-refusal-label", text: "Not in your notes" });
	for (const paragraph of answer.answer.split(/\n\s*\n/)) {
		if (paragraph.trim()) renderParagraph(el(body, "p"), paragraph, byNumber, go);
	}
	if (answer.findings.length) {
		const box = el(target, "div", { cls: "commonplace-findings" });
		el(box, "div", { cls: "commonplace-findings-label", text: "The daemon checked this answer and found:" });
		const items = el(box, "ul");
		for (const finding of answer.findings) el(items, "li", { text: finding });
	}
	if (answer.sources.length) {
		const list = el(target, "ol", { cls: "commonplace-sources" });
		for (const source of answer.sources) {
			const item = el(list, "li", { attr: { value: String(source.n), "data-n": String(source.n) } });
			const link = el(item, "a", { cls: "commonplace-source-link", text: sourceLabel(source) });
			clickable(link, (evt) => go(source, evt));
			if (source.text) el(item, "div", { cls: "commonplace-source-text", text: source.text });
		}
	}
}

export function sourceLabel(source: Source): string {
	if (source.attachment) return source.label;
	const heading = lastHeading(source.heading);
	return heading ? `${source.title} › ${heading}` : source.title;
}

function renderParagraph(
	target: HTMLElement,
	text: string,
	sources: Map<number, Source>,
	go: (source: Source, evt: MouseEvent | KeyboardEvent) => void,
): void {
	let last = 0;
	for (const match of text.matchAll(CITATION)) {
		const at = match.index ?? 0;
		if (at > last) target.appendChild(target.ownerDocument.createTextNode(text.slice(last, at)));
		const source = sources.get(Number(match[1]));
		if (source) {
			const link = el(target, "a", { cls: "commonplace-cite", text: match[0], attr: { title: sourceLabel(source) } });
			clickable(link, (evt) => go(source, evt));
		} else {
			el(target, "span", { cls: "commonplace-cite-unknown", text: match[0], attr: { title: "This number matches no source" } });
		}
		last = at + match[0].length;
	}
	if (last < text.length) target.appendChild(target.ownerDocument.createTextNode(text.slice(last)));
}
