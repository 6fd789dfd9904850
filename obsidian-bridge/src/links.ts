// Opening a note at a heading, the way a wikilink would: `path#Heading`. The daemon gives the
// heading path "A > B"; Obsidian finds a heading by its own text, so the last one is used, with
// the characters that cannot stand in a link dropped (as the daemon's own Ask-note links do).

import type { App } from "obsidian";

const NOT_IN_LINKS = /[[\]|^\n\r]/g;

export function lastHeading(heading: string): string {
	const parts = heading.split(" > ");
	return (parts[parts.length - 1] ?? "").trim();
}

export function linkTarget(path: string, heading = ""): string {
	const note = path.replace(/\.md$/i, "").replace(NOT_IN_LINKS, "");
	const section = lastHeading(heading).replace(NOT_IN_LINKS, "").replace(/#/g, " ").trim();
	return section ? `${note}#${section}` : note;
}

export type NoteOpener = (path: string, heading: string, newTab?: boolean) => Promise<void>;

export function noteOpener(app: App): NoteOpener {
	return (path, heading, newTab = false) => app.workspace.openLinkText(linkTarget(path, heading), "", newTab);
}

/** Cmd/Ctrl-click opens in a new tab, as everywhere in Obsidian. */
export function wantsNewTab(evt: MouseEvent | KeyboardEvent): boolean {
	return evt.metaKey || evt.ctrlKey;
}
