// Which related notes to show, and how: the note itself never; notes it already links to (or
// that link to it) marked, or hidden when the user asks; folders left out by the settings.

import type { NoteHit } from "../api/types";

export interface RelatedItem extends NoteHit {
	linked: boolean;
}

export interface RelatedFilter {
	current: string;
	linked: ReadonlySet<string>;
	hideLinked: boolean;
	exclude: readonly string[];
}

export function relatedItems(hits: readonly NoteHit[], filter: RelatedFilter): RelatedItem[] {
	const folders = filter.exclude.map((f) => f.replace(/^\/+|\/+$/g, "")).filter(Boolean);
	const items: RelatedItem[] = [];
	for (const hit of hits) {
		if (hit.path === filter.current) continue;
		if (folders.some((f) => hit.path.startsWith(`${f}/`))) continue;
		const linked = filter.linked.has(hit.path);
		if (linked && filter.hideLinked) continue;
		items.push({ ...hit, linked });
	}
	return items;
}

/** Notes the current note links to, and notes that link to it (Obsidian's resolved links:
 * source path -> target path -> count). */
export function linkedPaths(resolved: Record<string, Record<string, number>>, current: string): Set<string> {
	const out = new Set(Object.keys(resolved[current] ?? {}));
	for (const [source, targets] of Object.entries(resolved)) {
		if (source !== current && targets[current]) out.add(source);
	}
	return out;
}

/** Folders as the settings keep them: one per line, no leading or trailing slashes. */
export function parseFolders(text: string): string[] {
	return text
		.split(/[\n,]/)
		.map((f) => f.trim().replace(/^\/+|\/+$/g, ""))
		.filter(Boolean);
}
