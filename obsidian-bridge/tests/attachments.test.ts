// Attachments from a daemon that reads PDFs and images (the fields the attachments work adds to
// search results and Ask's sources: `page`, `label`, `attachment`): shown by their page, opened
// at that page; and the state's attention with the command that fixes it.

import { App } from "obsidian";
import { describe, expect, it } from "vitest";
import { parseAnswer, parseHits, parseState } from "../src/api/types";
import { renderAnswer } from "../src/ask/render";
import { linkTarget, noteOpener } from "../src/links";
import { SearchModal } from "../src/search/modal";
import { describe as describeState } from "../src/status/describe";
import { ANSWER, STATE, fakeDaemon, json, makeClient } from "./helpers";

const PDF_HIT = { path: "Papers/Manual.pdf", title: "Manual", heading: "", snippet: "torque the bolts to 40 Nm", score: 0.8, start_line: 4, page: 4, label: "Manual.pdf, page 4", attachment: true };
const PNG_HIT = { path: "Attachments/whiteboard.png", title: "whiteboard", heading: "", snippet: "sprint goals", score: 0.5, page: null, label: "whiteboard.png", attachment: true };
const NOTE_HIT = { path: "Projects/Shed.md", title: "Shed", heading: "Plan > Materials", snippet: "timber", score: 0.7 };

describe("attachments", () => {
	it("are read with their page; two pages of one PDF stay two results; an older daemon's notes are unchanged", () => {
		const result = parseHits({ results: [PDF_HIT, { ...PDF_HIT, page: 9, label: "Manual.pdf, page 9" }, PDF_HIT, PNG_HIT, NOTE_HIT], mode: "hybrid", notice: null });
		expect(result.hits.map((h) => [h.label, h.page, h.attachment])).toEqual([
			["Manual.pdf, page 4", 4, true],
			["Manual.pdf, page 9", 9, true],
			["whiteboard.png", null, true],
			["Shed", null, false],
		]);
	});

	it("open a PDF at its page, an image as itself, a note at its heading", async () => {
		expect(linkTarget("Papers/Manual.pdf", "", 4)).toBe("Papers/Manual.pdf#page=4");
		expect(linkTarget("Attachments/whiteboard.png")).toBe("Attachments/whiteboard.png");
		expect(linkTarget("Projects/Shed.md", "Plan > Materials")).toBe("Projects/Shed#Materials");
		const app = new App();
		const client = makeClient(fakeDaemon({ "GET /api/search": () => json({ results: [PDF_HIT, NOTE_HIT], mode: "hybrid", notice: null }) }).fetch);
		const modal = new SearchModal(app as never, client, noteOpener(app as never), "hybrid", () => {});
		modal.open();
		const hits = await modal.getSuggestions("torque");
		const row = document.createElement("div");
		modal.renderSuggestion(hits[0]!, row);
		expect(row.textContent).toContain("Manual.pdf, page 4");
		modal.onChooseSuggestion(hits[0]!, new MouseEvent("click"));
		await new Promise((r) => setTimeout(r, 0));
		expect(app.workspace.opened.map((o) => o.link)).toEqual(["Papers/Manual.pdf#page=4"]);
		modal.close();
	});

	it("in Ask's sources: labelled by page and opened there", async () => {
		const answer = parseAnswer({ ...ANSWER, answer: "Torque them to 40 Nm [1].", sources: [{ n: 1, path: "Papers/Manual.pdf", title: "Manual", heading: "", text: "40 Nm", start_line: 4, page: 4, label: "Manual.pdf, page 4", attachment: true }] });
		const root = document.createElement("div");
		const app = new App();
		renderAnswer(root, answer, noteOpener(app as never));
		const link = root.querySelector(".commonplace-source-link") as HTMLElement;
		expect(link.textContent).toBe("Manual.pdf, page 4");
		link.click();
		await new Promise((r) => setTimeout(r, 0));
		expect(app.workspace.opened[0]?.link).toBe("Papers/Manual.pdf#page=4");
	});
});

describe("the state", () => {
	it("names the daemon's version, the attachments, and what needs attention with its command", () => {
		const state = parseState({
			...STATE,
			index: { ...STATE.index, attachments: { indexed: 3, waiting: 2, reading: "Papers/Big.pdf", read: 1, problems: 1, ocr: false } },
			attention: [
				{ source: "attachments", path: "A.pdf", code: "encrypted", level: "warn", reason: "password-protected: not read", action: "" },
				{ source: "attachments", path: "B.pdf", code: "encrypted", level: "warn", reason: "password-protected: not read", action: "" },
				{ source: "attachments", path: "C.pdf", code: "encrypted", level: "warn", reason: "password-protected: not read", action: "" },
			],
			attention_summary: [{ source: "attachments", path: "", code: "encrypted", level: "warn", reason: "3 files are password-protected: A.pdf, B.pdf, C.pdf", action: "remove the password, or move them out of the vault" }],
		});
		const d = describeState({ kind: "state", state }, "http://127.0.0.1:8765", new Date("2026-10-26T09:10:00Z"));
		expect(d.lines[0]?.text).toContain("(version 0.3.0)");
		expect(d.lines.find((l) => l.label === "attachments" && l.text.includes("searchable"))?.text).toBe(
			"3 PDF(s) and image(s) searchable; reading Papers/Big.pdf; 2 waiting to be read; no OCR: scans and images are not read (commonplace doctor says how to add it)",
		);
		const attention = d.lines.filter((l) => l.level === "warn" && l.label === "attachments");
		expect(attention.map((l) => l.text)).toEqual(["3 files are password-protected: A.pdf, B.pdf, C.pdf; remove the password, or move them out of the vault"]);
		expect(d.text).toBe("Commonplace ✓ · 1 to look at");
	});
});
