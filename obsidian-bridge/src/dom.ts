// Small DOM helpers on the standard API, so that every module can be tested under happy-dom
// without Obsidian's HTMLElement extensions. Text is always set as text, never as HTML: what
// comes from notes and answers is shown, never run.

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
	const child = parent.ownerDocument.createElement(tag);
	if (options.cls) child.className = options.cls;
	if (options.text !== undefined) child.textContent = options.text;
	for (const [name, value] of Object.entries(options.attr ?? {})) child.setAttribute(name, value);
	parent.appendChild(child);
	return child;
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
	const probe = (node as HTMLElement & { isShown?: () => boolean }).isShown;
	return node.isConnected && (typeof probe === "function" ? probe.call(node) : true);
}
