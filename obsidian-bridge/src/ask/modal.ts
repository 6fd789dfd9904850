// The Ask modal: a question, the answer streaming in as a preview, then the checked answer with
// its sources. Closing the modal stops the request; the last answer stays for this session, so
// opening a source and coming back does not lose it.

import { type App, Modal } from "obsidian";
import { DaemonClient, isAbort } from "../api/client";
import type { Answer } from "../api/types";
import { clear, el } from "../dom";
import type { NoteOpener } from "../links";
import { renderAnswer, renderPreview } from "./render";

export interface LastAsk {
	question: string;
	answer: Answer | null;
}

export class AskModal extends Modal {
	private controller: AbortController | null = null;
	private input!: HTMLTextAreaElement;
	private button!: HTMLButtonElement;
	private output!: HTMLElement;

	constructor(
		app: App,
		private readonly client: DaemonClient,
		private readonly openNote: NoteOpener,
		private readonly last: LastAsk,
	) {
		super(app);
	}

	onOpen(): void {
		const root = this.contentEl;
		clear(root);
		root.classList.add("commonplace-ask");
		el(root, "h3", { text: "Ask your notes" });
		this.input = el(root, "textarea", { cls: "commonplace-question", attr: { rows: "3", placeholder: "What would you like to know? (Enter asks, Shift+Enter is a new line)" } });
		this.input.value = this.last.question;
		this.button = el(root, "button", { cls: "mod-cta", text: "Ask" });
		this.output = el(root, "div", { cls: "commonplace-output" });
		this.input.addEventListener("keydown", (evt) => {
			if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
				evt.preventDefault();
				void this.ask();
			}
		});
		this.button.addEventListener("click", () => void this.ask());
		if (this.last.answer) renderAnswer(this.output, this.last.answer, this.openNote, () => this.close());
		this.input.focus();
	}

	onClose(): void {
		this.controller?.abort();
		this.controller = null;
		clear(this.contentEl);
	}

	async ask(): Promise<void> {
		const question = this.input.value.trim();
		if (!question) return;
		this.controller?.abort();
		const controller = new AbortController();
		this.controller = controller;
		this.last.question = question;
		this.last.answer = null;
		this.button.disabled = true;
		clear(this.output);
		el(this.output, "div", { cls: "commonplace-waiting", text: "Finding passages…" });
		let preview = "";
		try {
			const answer = await this.client.ask(
				question,
				(piece) => {
					preview += piece;
					if (!controller.signal.aborted) renderPreview(this.output, preview);
				},
				controller.signal,
			);
			if (controller.signal.aborted) return;
			this.last.answer = answer;
			renderAnswer(this.output, answer, this.openNote, () => this.close());
		} catch (err) {
			if (isAbort(err) || controller.signal.aborted) return;
			clear(this.output);
			el(this.output, "div", { cls: "commonplace-error", text: err instanceof Error ? err.message : String(err) });
		} finally {
			if (this.controller === controller) {
				this.controller = null;
				this.button.disabled = false;
			}
		}
	}
}
