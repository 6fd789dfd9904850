// The daemon's state as the plugin knows it: daemon, Ollama and models, captures waiting, last
// index time, what needs attention. Shown in the status bar on desktop (the API has no status
// bar on mobile) and at the top of the related-notes view on mobile.
//
// There is no polling loop: it asks /api/state when the user clicks it or opens the details,
// when Obsidian gets the focus, and after one of the plugin's own requests succeeded or failed
// (at most every few seconds, and at once when the daemon went from reachable to not or back).
// While the daemon does not answer, the automatic checks back off (5 s, 10 s, 20 s... up to
// 5 min), and the details say when the next one may be; a click always asks at once.

import { type App, Modal } from "obsidian";
import { DaemonClient, DaemonError, isAbort } from "../api/client";
import { clear, el } from "../dom";
import type { Reachability } from "../health";
import { type Description, type Observation, describe } from "./describe";

export const MIN_REFRESH_MS = 5000;
export const MAX_BACKOFF_MS = 300000;

export class StatusBar {
	observation: Observation = { kind: "unknown" };
	private inFlight: Promise<void> | null = null;
	private lastAsked = 0;
	private lastReach: Reachability = "unknown";
	private failures = 0;
	private readonly listeners = new Set<() => void>();

	constructor(
		readonly item: HTMLElement | null,
		private readonly client: DaemonClient,
		private readonly now: () => number = () => Date.now(),
		private readonly pluginVersion = "",
	) {
		item?.classList.add("commonplace-status", "mod-clickable");
		this.show(this.describe());
	}

	/** How long the automatic checks wait now: longer while the daemon does not answer. */
	get backoffMs(): number {
		return this.failures ? Math.min(MAX_BACKOFF_MS, MIN_REFRESH_MS * 2 ** Math.min(this.failures - 1, 10)) : MIN_REFRESH_MS;
	}

	/** Ask the daemon now (a user action). */
	refresh(): Promise<void> {
		if (this.inFlight) return this.inFlight;
		this.lastAsked = this.now();
		this.inFlight = this.client
			.state()
			.then((state) => {
				this.failures = 0;
				this.observation = { kind: "state", state };
			})
			.catch((err: unknown) => {
				if (isAbort(err)) return;
				const error = err instanceof DaemonError ? err : new DaemonError("bad_response", String(err));
				if (error.kind === "down") this.failures += 1;
				this.observation = { kind: "error", error };
			})
			.finally(() => {
				this.inFlight = null;
				this.show(this.describe());
			});
		return this.inFlight;
	}

	/** Obsidian got the focus: ask, unless asked recently (or, while down, within the backoff). */
	focused(): void {
		if (this.now() - this.lastAsked >= this.backoffMs) void this.refresh();
	}

	/** After another request: refresh when reachability changed, or the state is getting old. */
	afterRequest(path: string, reach: Reachability): void {
		if (path.startsWith("/api/state") || path.startsWith("/api/pair")) return; // our own
		const changed = reach !== this.lastReach;
		this.lastReach = reach;
		if (changed || this.now() - this.lastAsked >= this.backoffMs) void this.refresh();
	}

	describe(): Description {
		const description = describe(this.observation, this.client.baseUrl, undefined, this.pluginVersion);
		if (this.failures) {
			const seconds = Math.round(this.backoffMs / 1000);
			description.lines.push({ level: "warn", label: "checks", text: `asked again when Obsidian gets the focus, at most every ${seconds} s while it does not answer; click to ask now` });
		}
		return description;
	}

	/** Returns a function that removes the listener (give it to register). */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private show(description: Description): void {
		if (this.item) {
			this.item.textContent = description.text;
			this.item.setAttribute("aria-label", description.lines.map((l) => `${l.label}: ${l.text}`).join("\n"));
			this.item.dataset.level = description.level;
		}
		for (const listener of this.listeners) listener();
	}
}

/** What `doctor` would say, from the plugin's side, with what to do for each problem. */
export class StatusModal extends Modal {
	constructor(app: App, private readonly bar: StatusBar) {
		super(app);
	}

	onOpen(): void {
		this.draw();
		void this.bar.refresh().then(() => this.draw());
	}

	onClose(): void {
		clear(this.contentEl);
	}

	private draw(): void {
		const root = this.contentEl;
		clear(root);
		root.classList.add("commonplace-status-details");
		el(root, "div", { cls: "commonplace-status-title", text: "Commonplace" });
		const list = el(root, "div", { cls: "commonplace-doctor" });
		for (const line of this.bar.describe().lines) {
			const row = el(list, "div", { cls: `commonplace-doctor-line is-${line.level}` });
			el(row, "span", { cls: "commonplace-doctor-level", text: line.level === "ok" ? "ok" : line.level === "warn" ? "warn" : "FAIL" });
			el(row, "span", { cls: "commonplace-doctor-label", text: line.label });
			el(row, "span", { cls: "commonplace-doctor-text", text: line.text });
		}
		const again = el(root, "button", { text: "Check again" });
		again.addEventListener("click", () => void this.bar.refresh().then(() => this.draw()));
	}
}
