// Small DOM helpers over Obsidian's own (`createEl`, which the tests' stand-in provides under
// happy-dom). Text is always set as text, never as HTML: what comes from notes and answers is
// shown, never run.

export interface ElOptions {
	cls?: string;
	text?: string;
	attr?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
	parent: HTMLElement,
	tag: K,
	options: ElOptions = {},
): HTMLElementTagNameMap[K] {
	return parent.createEl(tag, { cls: options.cls, text: options.text, attr: options.attr });
}

export function clear(node: HTMLElement): void {
	while (node.firstChild) node.removeChild(node.firstChild);
}

/** A clickable element that also answers Enter and Space, for keyboard users. */
export function clickable(node: HTMLElement, action: (evt: MouseEvent | KeyboardEvent) => void): void {
	node.setAttribute("role", "link");
	node.tabIndex = 0;
	node.addEventListener("click", (evt) => action(evt));
	node.addEventListener("keydown", (evt) => {
		if (evt.key === "Enter" || evt.key === " ") {
			evt.preventDefault();
			action(evt);
		}
	});
}

/** Shown unless Obsidian says otherwise (its `isShown` knows about hidden sidebars). */
export function isShown(node: HTMLElement): boolean {
	const probe = node as HTMLElement & { isShown?: (this: HTMLElement) => boolean };
	return node.isConnected && (typeof probe.isShown === "function" ? probe.isShown() : true);
}
