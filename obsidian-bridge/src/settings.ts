// The plugin's settings: kept with Obsidian's loadData/saveData, checked on load so that a
// hand-edited or older data.json never puts a wrong type into the plugin.

import type { SearchMode } from "./api/types";
import { SEARCH_MODES } from "./api/types";

export const DEFAULT_DAEMON_URL = "http://127.0.0.1:8765";

export interface Settings {
	daemonUrl: string;
	excludeFolders: string[];
	hideLinked: boolean;
	relatedLimit: number;
	searchMode: SearchMode;
	/** Only where Obsidian has no secret storage (before 1.11.4); the settings tab warns. */
	token: string;
}

export const DEFAULT_SETTINGS: Settings = {
	daemonUrl: DEFAULT_DAEMON_URL,
	excludeFolders: [],
	hideLinked: false,
	relatedLimit: 10,
	searchMode: "hybrid",
	token: "",
};

export function normaliseSettings(raw: unknown): Settings {
	const data = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
	const folders = Array.isArray(data.excludeFolders) ? data.excludeFolders.filter((f): f is string => typeof f === "string") : [];
	const limit = typeof data.relatedLimit === "number" ? Math.round(data.relatedLimit) : DEFAULT_SETTINGS.relatedLimit;
	return {
		daemonUrl: validUrl(data.daemonUrl) ?? DEFAULT_DAEMON_URL,
		excludeFolders: folders,
		hideLinked: data.hideLinked === true,
		relatedLimit: Math.min(50, Math.max(1, limit)),
		searchMode: SEARCH_MODES.includes(data.searchMode as SearchMode) ? (data.searchMode as SearchMode) : "hybrid",
		token: typeof data.token === "string" ? data.token : "",
	};
}

/** An http(s) address without a trailing slash, or null. */
export function validUrl(value: unknown): string | null {
	if (typeof value !== "string") return null;
	try {
		const url = new URL(value.trim());
		if (url.protocol !== "http:" && url.protocol !== "https:") return null;
		return url.origin + url.pathname.replace(/\/+$/, "");
	} catch {
		return null;
	}
}
