// What the plugin knows of the daemon from its own requests, and the one notice when it stops
// answering: one per outage (or per refused token), never one per request, and nothing thrown
// into the console in a loop. Whoever shows the state (the status bar) listens here.

import { Notice } from "obsidian";
import type { DaemonError } from "./api/client";

export type Reachability = "unknown" | "ok" | "down" | "auth";

export class Health {
	private current: Reachability = "unknown";
	private noticed: Reachability | null = null;
	private readonly listeners = new Set<(path: string) => void>();

	get reachability(): Reachability {
		return this.current;
	}

	/** Called by the client after each request that was not aborted. */
	outcome(error: DaemonError | null, path: string): void {
		const next: Reachability = error === null || error.kind === "api" || error.kind === "bad_response" ? "ok" : error.kind;
		if (next !== this.current) {
			this.current = next;
			if ((next === "down" || next === "auth") && this.noticed !== next && error) {
				this.noticed = next;
				new Notice(`Commonplace: ${error.message}`, 10000);
			}
			if (next === "ok") this.noticed = null;
		}
		for (const listener of this.listeners) listener(path);
	}

	/** Returns a function that removes the listener (give it to Plugin.register). */
	listen(listener: (path: string) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}
