import { App } from "obsidian";
import { beforeEach, describe, expect, it } from "vitest";
import { AskModal, type LastAsk } from "../src/ask/modal";
import { renderAnswer } from "../src/ask/render";
import { parseAnswer } from "../src/api/types";
import { linkTarget, noteOpener } from "../src/links";
import { ANSWER, apiError, controlledStream, fakeDaemon, flush, makeClient } from "./helpers";

function texts(root: HTMLElement, selector: string): string[] {
	return [...root.querySelectorAll(selector)].map((n) => n.textContent ?? "");
}

describe("rendering an answer", () => {
	let app: App;
	let root: HTMLElement;
	beforeEach(() => {
		app = new App();
		root = document.createElement("div");
	});

	it("shows the text, numbered sources and the daemon's findings", () => {
		renderAnswer(root, parseAnswer(ANSWER), noteOpener(app));
		expect(texts(root, ".commonplace-answer p")).toEqual([
			"The timber is ordered from Jewson [1] and arrives on Friday [2].",
			"Bring gloves [7].",
		]);
		expect(texts(root, ".commonplace-cite")).toEqual(["[1]", "[2]"]);
		expect(texts(root, ".commonplace-cite-unknown")).toEqual(["[7]"]); // not a link: no source 7
		expect(texts(root, ".commonplace-source-link")).toEqual(["Shed Rebuild › Materials", "Order shed timber"]);
		expect([...root.querySelectorAll(".commonplace-sources li")].map((li) => li.getAttribute("value"))).toEqual(["1", "2"]);
		expect(texts(root, ".commonplace-findings li")).toEqual([ANSWER.findings[0]]);
		expect(root.querySelector(".commonplace-refusal")).toBeNull();
	});

	it("opens a source at its heading, from the list and from the [n] in the text", () => {
		let closed = 0;
		renderAnswer(root, parseAnswer(ANSWER), noteOpener(app), () => closed++);
		(root.querySelector(".commonplace-source-link") as HTMLElement).click();
		(root.querySelectorAll(".commonplace-cite")[1] as HTMLElement).click();
		expect(app.workspace.opened).toEqual([
			{ link: "Projects/Shed Rebuild#Materials", source: "", newLeaf: false },
			{ link: "Filed/2026-10-20 0805 Order shed timber", source: "", newLeaf: false },
		]);
		expect(closed).toBe(2);
	});

	it("opens in a new tab with Ctrl or Cmd", () => {
		renderAnswer(root, parseAnswer(ANSWER), noteOpener(app));
		root.querySelector(".commonplace-source-link")!.dispatchEvent(new MouseEvent("click", { ctrlKey: true }));
		expect(app.workspace.opened[0]?.newLeaf).toBe(true);
	});

	it("shows the refusal sentence as a refusal", () => {
		const refusal = { ...ANSWER, answer: "I can't find that in your notes.", refused: true, sources: [], findings: [] };
		renderAnswer(root, parseAnswer(refusal), noteOpener(app));
		expect(texts(root, ".commonplace-refusal-label")).toEqual(["Not in your notes"]);
		expect(texts(root, ".commonplace-refusal p")).toEqual(["I can't find that in your notes."]);
		expect(root.querySelector(".commonplace-sources")).toBeNull();
	});

	it("puts note text on the page as text, never as HTML", () => {
		const hostile = { ...ANSWER, answer: '<img src=x onerror="alert(1)"> [1]', sources: [{ ...ANSWER.sources[0], title: "<b>bold</b>" }] };
		renderAnswer(root, parseAnswer(hostile), noteOpener(app));
		expect(root.querySelector("img")).toBeNull();
		expect(root.querySelector("b")).toBeNull();
		expect(root.textContent).toContain('<img src=x onerror="alert(1)">');
	});
});

describe("links to headings", () => {
	it.each([
		["Projects/Shed.md", "Plan > Materials", "Projects/Shed#Materials"],
		["Shed.md", "", "Shed"],
		["Odd [name].md", "Q: what | why? #2", "Odd name#Q: what  why?  2"],
	])("%s at %s", (path, heading, expected) => {
		expect(linkTarget(path, heading)).toBe(expected);
	});
});

describe("the Ask modal", () => {
	it("streams the preview, then replaces it with the checked answer", async () => {
		const app = new App();
		const stream = controlledStream();
		const fake = fakeDaemon({ "POST /api/ask": () => stream.response });
		const last: LastAsk = { question: "", answer: null };
		const modal = new AskModal(app, makeClient(fake.fetch), noteOpener(app), last);
		modal.open();
		modal.contentEl.querySelector("textarea")!.value = "When is the timber coming?";
		const asking = modal.ask();
		await flush();
		stream.push('{"type": "delta", "text": "The timber is"}\n');
		await flush();
		expect(texts(modal.contentEl, ".commonplace-preview")).toEqual(["The timber is"]);
		expect(modal.contentEl.querySelector("button")!.disabled).toBe(true);
		stream.push(`${JSON.stringify(ANSWER)}\n`);
		stream.end();
		await asking;
		expect(modal.contentEl.querySelector(".commonplace-preview")).toBeNull();
		expect(texts(modal.contentEl, ".commonplace-source-link")).toHaveLength(2);
		expect(modal.contentEl.querySelector("button")!.disabled).toBe(false);
		expect(last.answer?.answer).toBe(ANSWER.answer);
		// opening a source closes the modal; opening it again shows the same answer
		(modal.contentEl.querySelector(".commonplace-source-link") as HTMLElement).click();
		expect(modal.isOpen).toBe(false);
		expect(app.workspace.opened[0]?.link).toBe("Projects/Shed Rebuild#Materials");
		const again = new AskModal(app, makeClient(fake.fetch), noteOpener(app), last);
		again.open();
		expect(again.contentEl.querySelector("textarea")!.value).toBe("When is the timber coming?");
		expect(texts(again.contentEl, ".commonplace-source-link")).toHaveLength(2);
	});

	it("closing the modal aborts the request", async () => {
		const app = new App();
		const stream = controlledStream();
		const fake = fakeDaemon({ "POST /api/ask": () => new Promise(() => {}) });
		const modal = new AskModal(app, makeClient(fake.fetch), noteOpener(app), { question: "", answer: null });
		modal.open();
		modal.contentEl.querySelector("textarea")!.value = "q";
		const asking = modal.ask();
		await flush();
		modal.close();
		await asking;
		expect(fake.requests[0]?.signal?.aborted).toBe(true);
		stream.end();
	});

	it("shows the daemon's error sentence", async () => {
		const app = new App();
		const fake = fakeDaemon({ "POST /api/ask": () => apiError(503, "ollama_unavailable", "Ollama is not answering; start it with 'ollama serve'.") });
		const modal = new AskModal(app, makeClient(fake.fetch), noteOpener(app), { question: "", answer: null });
		modal.open();
		modal.contentEl.querySelector("textarea")!.value = "q";
		await modal.ask();
		expect(texts(modal.contentEl, ".commonplace-error")).toEqual(["Ollama is not answering; start it with 'ollama serve'."]);
	});
});
