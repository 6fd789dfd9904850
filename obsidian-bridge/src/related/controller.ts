// When to ask the daemon for related notes: after the active note has been still for a moment
// (debounced), only while the view is visible (otherwise later, when it shows), never for a
// pinned view, and with the previous request aborted as soon as the note changes.

import { isAbort } from "../api/client";
import type { SearchResult } from "../api/types";

export const RELATED_DELAY_MS = 250;

export type RelatedState =
	| { kind: "empty" }
	| { kind: "loading"; path: string }
	| { kind: "ready"; path: string; result: SearchResult }
	| { kind: "error"; path: string; message: string };

export interface ControllerDeps {
	fetch: (path: string, signal: AbortSignal) => Promise<SearchResult>;
	render: (state: RelatedState) => void;
	visible: () => boolean;
	delayMs?: number;
}

export class RelatedController {
	private wanted: string | null = null; // the note the view should show
	private shown: string | null = null; // the note whose results are (being) shown
	private timer: number | null = null;
	private request: AbortController | null = null;
	pinned = false;

	constructor(private readonly deps: ControllerDeps) {}

	get path(): string | null {
		return this.wanted;
	}

	/** The active note changed (or a file opened): show it soon, unless pinned. */
	noteChanged(path: string | null): void {
		if (this.pinned || path === null || path === this.wanted) return;
		this.wanted = path;
		this.request?.abort(); // the old note's answer is no longer wanted
		this.request = null;
		this.schedule();
	}

	/** The view may have become visible: catch up if the note changed meanwhile. */
	shownAgain(): void {
		if (this.wanted !== null && this.wanted !== this.shown && this.timer === null && this.request === null) this.schedule();
	}

	/** Ask again now (a refresh button, or the settings changed). */
	refresh(): void {
		this.shown = null;
		this.clearTimer();
		void this.load();
	}

	setPinned(pinned: boolean, activePath: string | null): void {
		this.pinned = pinned;
		if (!pinned && activePath !== null) this.noteChanged(activePath);
	}

	dispose(): void {
		this.clearTimer();
		this.request?.abort();
		this.request = null;
	}

	private schedule(): void {
		this.clearTimer();
		this.timer = window.setTimeout(() => {
			this.timer = null;
			void this.load();
		}, this.deps.delayMs ?? RELATED_DELAY_MS);
	}

	private clearTimer(): void {
		if (this.timer !== null) window.clearTimeout(this.timer);
		this.timer = null;
	}

	private async load(): Promise<void> {
		const path = this.wanted;
		if (path === null || !this.deps.visible()) return; // shownAgain() catches up
		this.request?.abort();
		const request = new AbortController();
		this.request = request;
		this.shown = path;
		this.deps.render({ kind: "loading", path });
		try {
			const result = await this.deps.fetch(path, request.signal);
			if (!request.signal.aborted) this.deps.render({ kind: "ready", path, result });
		} catch (err) {
			if (isAbort(err) || request.signal.aborted) return;
			this.deps.render({ kind: "error", path, message: err instanceof Error ? err.message : String(err) });
		} finally {
			if (this.request === request) this.request = null;
		}
	}
}
