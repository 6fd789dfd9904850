// Quick search over the daemon's index: type, pick a note, it opens at the matching heading.
// Tab switches the mode (hybrid, keyword, vector). Typing waits a moment before asking, and a
// newer query aborts the older one, so a fast typist never queues a dozen searches.

import { type App, SuggestModal } from "obsidian";
import { DaemonClient, isAbort } from "../api/client";
import { type NoteHit, SEARCH_MODES, type SearchMode } from "../api/types";
import { el } from "../dom";
import { type NoteOpener, lastHeading, wantsNewTab } from "../links";

export const SEARCH_DELAY_MS = 200;
const SEARCH_LIMIT = 20;

export class SearchModal extends SuggestModal<NoteHit> {
	private request: AbortController | null = null;
	private timer: number | null = null;
	private noticeEl: HTMLElement;

	constructor(
		app: App,
		private readonly client: DaemonClient,
		private readonly openNote: NoteOpener,
		public mode: SearchMode,
		private readonly onMode: (mode: SearchMode) => void,
	) {
		super(app);
		this.limit = SEARCH_LIMIT;
		this.emptyStateText = "Type to search your notes.";
		this.noticeEl = el(this.modalEl, "div", { cls: "commonplace-notice" });
		this.showMode();
		this.scope.register([], "Tab", (evt: KeyboardEvent) => {
			evt.preventDefault();
			this.cycleMode();
			return false;
		});
	}

	cycleMode(): void {
		const next = SEARCH_MODES[(SEARCH_MODES.indexOf(this.mode) + 1) % SEARCH_MODES.length] ?? "hybrid";
		this.mode = next;
		this.onMode(next);
		this.showMode();
		this.inputEl.dispatchEvent(new Event("input")); // search again in the new mode
	}

	private showMode(): void {
		this.setPlaceholder(`Search notes (${this.mode})`);
		this.setInstructions([
			{ command: "↵", purpose: "open" },
			{ command: "ctrl/cmd ↵", purpose: "open in a new tab" },
			{ command: "tab", purpose: `mode: ${this.mode}` },
		]);
	}

	async getSuggestions(query: string): Promise<NoteHit[]> {
		this.request?.abort();
		if (this.timer !== null) window.clearTimeout(this.timer);
		const text = query.trim();
		if (!text) {
			this.noticeEl.textContent = "";
			return [];
		}
		const request = new AbortController();
		this.request = request;
		await new Promise<void>((resolve) => {
			this.timer = window.setTimeout(resolve, SEARCH_DELAY_MS);
			request.signal.addEventListener("abort", () => resolve());
		});
		if (request.signal.aborted) return [];
		try {
			const result = await this.client.search(text, this.mode, SEARCH_LIMIT, request.signal);
			this.noticeEl.textContent = result.notice ?? "";
			return result.hits;
		} catch (err) {
			if (isAbort(err) || request.signal.aborted) return [];
			this.noticeEl.textContent = err instanceof Error ? err.message : String(err);
			return [];
		}
	}

	renderSuggestion(hit: NoteHit, target: HTMLElement): void {
		el(target, "div", { cls: hit.attachment ? "commonplace-hit-title is-attachment" : "commonplace-hit-title", text: hit.attachment ? hit.label : hit.title });
		const heading = lastHeading(hit.heading);
		if (heading) el(target, "div", { cls: "commonplace-hit-heading", text: heading });
		if (hit.snippet) el(target, "div", { cls: "commonplace-hit-snippet", text: hit.snippet });
	}

	onChooseSuggestion(hit: NoteHit, evt: MouseEvent | KeyboardEvent): void {
		void this.openNote(hit.path, hit.heading, wantsNewTab(evt), hit.page);
	}

	onClose(): void {
		this.request?.abort();
		if (this.timer !== null) window.clearTimeout(this.timer);
		this.timer = null;
		super.onClose();
	}
}
