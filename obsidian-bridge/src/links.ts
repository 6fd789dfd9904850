// Opening a note at a heading, the way a wikilink would: `path#Heading`; a PDF at its page:
// `Manual.pdf#page=4`. The daemon gives the
// heading path "A > B"; Obsidian finds a heading by its own text, so the last one is used, with
// the characters that cannot stand in a link dropped (as the daemon's own Ask-note links do).

import type { App } from "obsidian";

const NOT_IN_LINKS = /[[\]|^\n\r]/g;

export function lastHeading(heading: string): string {
	const parts = heading.split(" > ");
	return (parts[parts.length - 1] ?? "").trim();
}

export function linkTarget(path: string, heading = "", page: number | null = null): string {
	if (page !== null) return `${path.replace(NOT_IN_LINKS, "")}#page=${page}`; // Obsidian opens a PDF there
	const note = path.replace(/\.md$/i, "").replace(NOT_IN_LINKS, "");
	const section = lastHeading(heading).replace(NOT_IN_LINKS, "").replace(/#/g, " ").trim();
	return section ? `${note}#${section}` : note;
}

export type NoteOpener = (path: string, heading: string, newTab?: boolean, page?: number | null) => Promise<void>;

export function noteOpener(app: App): NoteOpener {
	return (path, heading, newTab = false, page = null) => app.workspace.openLinkText(linkTarget(path, heading, page), "", newTab);
}

/** Cmd/Ctrl-click opens in a new tab, as everywhere in Obsidian. */
export function wantsNewTab(evt: MouseEvent | KeyboardEvent): boolean {
	return evt.metaKey || evt.ctrlKey;
}
