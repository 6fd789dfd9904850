// The status-bar item (desktop): daemon, Ollama and models, captures waiting, last index time.
// There is no polling loop: it asks /api/state when Obsidian gets the focus, when the user
// clicks it, and after one of the plugin's requests succeeded or failed (at most every few
// seconds, and at once when the daemon went from reachable to not or back).

import { type App, Modal } from "obsidian";
import { DaemonClient, DaemonError, isAbort } from "../api/client";
import { clear, el } from "../dom";
import type { Reachability } from "../health";
import { type Description, type Observation, describe } from "./describe";

export const MIN_REFRESH_MS = 5000;

export class StatusBar {
	observation: Observation = { kind: "unknown" };
	private inFlight: Promise<void> | null = null;
	private lastAsked = 0;
	private lastReach: Reachability = "unknown";

	constructor(
		readonly item: HTMLElement,
		private readonly client: DaemonClient,
		private readonly now: () => number = () => Date.now(),
		private readonly pluginVersion = "",
	) {
		item.classList.add("commonplace-status", "mod-clickable");
		this.show(this.describe());
	}

	/** Ask the daemon now (a user action, the window got the focus). */
	refresh(): Promise<void> {
		if (this.inFlight) return this.inFlight;
		this.lastAsked = this.now();
		this.inFlight = this.client
			.state()
			.then((state) => {
				this.observation = { kind: "state", state };
			})
			.catch((err: unknown) => {
				if (isAbort(err)) return;
				const error = err instanceof DaemonError ? err : new DaemonError("bad_response", String(err));
				this.observation = { kind: "error", error };
			})
			.finally(() => {
				this.inFlight = null;
				this.show(this.describe());
			});
		return this.inFlight;
	}

	/** After another request: refresh when reachability changed, or the state is getting old. */
	afterRequest(path: string, reach: Reachability): void {
		if (path.startsWith("/api/state")) return; // our own request
		const changed = reach !== this.lastReach;
		this.lastReach = reach;
		if (changed || this.now() - this.lastAsked >= MIN_REFRESH_MS) void this.refresh();
	}

	describe(): Description {
		return describe(this.observation, this.client.baseUrl, undefined, this.pluginVersion);
	}

	private show(description: Description): void {
		this.item.textContent = description.text;
		this.item.setAttribute("aria-label", description.lines.map((l) => `${l.label}: ${l.text}`).join("\n"));
		this.item.dataset.level = description.level;
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
		el(root, "h3", { text: "Commonplace" });
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
