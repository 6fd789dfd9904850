// A small stand-in for the `obsidian` module (the npm package holds only types): just the
// parts the plugin uses, behaving as the API documents them, plus a few handles for tests
// (what was opened, which notices showed, how many listeners are still attached).

// Obsidian's HTMLElement.createEl (text set as text, never parsed), as the app adds it.
declare global {
	interface HTMLElement {
		createEl<K extends keyof HTMLElementTagNameMap>(tag: K, o?: { cls?: string | string[]; text?: string; attr?: Record<string, string> }): HTMLElementTagNameMap[K];
	}
}
if (typeof HTMLElement !== "undefined" && !("createEl" in HTMLElement.prototype)) {
	Object.defineProperty(HTMLElement.prototype, "createEl", {
		configurable: true,
		value<K extends keyof HTMLElementTagNameMap>(this: HTMLElement, tag: K, o: { cls?: string | string[]; text?: string; attr?: Record<string, string> } = {}) {
			const child = this.ownerDocument.createElement(tag);
			if (o.cls) child.className = Array.isArray(o.cls) ? o.cls.join(" ") : o.cls;
			if (o.text !== undefined) child.textContent = o.text;
			for (const [name, value] of Object.entries(o.attr ?? {})) child.setAttribute(name, value);
			this.appendChild(child);
			return child;
		},
	});
}

export let apiVersion = "1.12.0";
export function setApiVersion(version: string): void {
	apiVersion = version;
}

function newer(a: string, b: string): boolean {
	const pa = a.split(".").map(Number);
	const pb = b.split(".").map(Number);
	for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
		const d = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (d !== 0) return d > 0;
	}
	return true;
}

export function requireApiVersion(version: string): boolean {
	return newer(apiVersion, version);
}

export const Platform = {
	isDesktopApp: true,
	isDesktop: true,
	isMobile: false,
	isMobileApp: false,
	isIosApp: false,
	isAndroidApp: false,
	isMacOS: false,
	isWin: false,
	isLinux: true,
};

/** Test handle: Obsidian for iPhone (no status bar, no Node, no files outside the vault). */
export function setMobile(mobile: boolean): void {
	Object.assign(Platform, {
		isDesktopApp: !mobile,
		isDesktop: !mobile,
		isMobile: mobile,
		isMobileApp: mobile,
		isIosApp: mobile,
		isLinux: !mobile,
	});
}

// -- requestUrl: as Obsidian's, no CORS and no streaming; it answers through a test's fetch --

export interface RequestUrlParam {
	url: string;
	method?: string;
	contentType?: string;
	body?: string;
	headers?: Record<string, string>;
	throw?: boolean;
}

export const requestUrlCalls: RequestUrlParam[] = [];
let requestFetch: ((input: string, init: RequestInit) => Promise<Response>) | null = null;

/** Test handle: where requestUrl's requests go (default: the global fetch at call time). */
export function setRequestFetch(fetch: ((input: string, init: RequestInit) => Promise<Response>) | null): void {
	requestFetch = fetch;
}

export async function requestUrl(param: RequestUrlParam): Promise<{ status: number; text: string; json: unknown; headers: Record<string, string> }> {
	requestUrlCalls.push(param);
	const send = requestFetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
	const response = await send(param.url, { method: param.method ?? "GET", headers: param.headers, body: param.body });
	const text = await response.text();
	if (param.throw !== false && response.status >= 400) throw new Error(`Request failed, status ${response.status}`);
	let json: unknown = null;
	try {
		json = JSON.parse(text);
	} catch {
		json = null;
	}
	return { status: response.status, text, json, headers: {} };
}

export function setIcon(el: HTMLElement, icon: string): void {
	el.dataset.icon = icon;
}

export class Notice {
	static shown: string[] = [];
	constructor(readonly message: string, readonly timeout?: number) {
		Notice.shown.push(message);
	}
	hide(): void {}
}

// -- events and components -------------------------------------------------------------

export interface EventRef {
	owner: Events;
	name: string;
	fn: (...args: unknown[]) => unknown;
}

export class Events {
	private handlers = new Map<string, Set<EventRef>>();
	on(name: string, fn: (...args: any[]) => unknown): EventRef {
		const ref: EventRef = { owner: this, name, fn };
		if (!this.handlers.has(name)) this.handlers.set(name, new Set());
		this.handlers.get(name)!.add(ref);
		return ref;
	}
	offref(ref: EventRef): void {
		this.handlers.get(ref.name)?.delete(ref);
	}
	trigger(name: string, ...args: unknown[]): void {
		for (const ref of [...(this.handlers.get(name) ?? [])]) ref.fn(...args);
	}
	listenerCount(): number {
		let n = 0;
		for (const set of this.handlers.values()) n += set.size;
		return n;
	}
}

export let liveDomListeners = 0;
export const liveIntervals = new Set<number>();

export class Component {
	private cleanups: (() => void)[] = [];
	private children: Component[] = [];
	loaded = false;
	load(): void {
		this.loaded = true;
		void this.onload();
		for (const child of this.children) child.load();
	}
	onload(): void | Promise<void> {}
	unload(): void {
		for (const child of this.children) child.unload();
		this.onunload();
		for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
		this.loaded = false;
	}
	onunload(): void {}
	addChild<T extends Component>(child: T): T {
		this.children.push(child);
		if (this.loaded) child.load();
		return child;
	}
	register(cb: () => unknown): void {
		this.cleanups.push(() => void cb());
	}
	registerEvent(ref: EventRef): void {
		this.cleanups.push(() => ref.owner.offref(ref));
	}
	registerDomEvent(el: EventTarget, type: string, cb: (evt: any) => unknown, options?: boolean | AddEventListenerOptions): void {
		el.addEventListener(type, cb, options);
		liveDomListeners++;
		this.cleanups.push(() => {
			el.removeEventListener(type, cb, options);
			liveDomListeners--;
		});
	}
	registerInterval(id: number): number {
		liveIntervals.add(id);
		this.cleanups.push(() => {
			window.clearInterval(id);
			liveIntervals.delete(id);
		});
		return id;
	}
}

// -- files, leaves, views, workspace ---------------------------------------------------

export class TFile {
	readonly name: string;
	readonly basename: string;
	readonly extension: string;
	constructor(readonly path: string) {
		this.name = path.split("/").pop() ?? path;
		this.extension = this.name.includes(".") ? (this.name.split(".").pop() ?? "") : "";
		this.basename = this.name.replace(/\.[^.]*$/, "");
	}
}

export class WorkspaceLeaf {
	view: View | null = null;
	constructor(readonly app: App) {}
	async setViewState(state: { type: string }): Promise<void> {
		const creator = this.app.workspace.viewCreators.get(state.type);
		if (!creator) throw new Error(`no view registered for ${state.type}`);
		this.view?.unload();
		this.view = creator(this);
		document.body.appendChild(this.view.containerEl);
		this.view.load();
		await this.view.onOpen();
	}
	detach(): void {
		if (this.view) {
			void this.view.onClose();
			this.view.unload();
			this.view.containerEl.remove();
		}
		this.view = null;
	}
}

export abstract class View extends Component {
	app: App;
	containerEl: HTMLElement;
	constructor(readonly leaf: WorkspaceLeaf) {
		super();
		this.app = leaf.app;
		this.containerEl = document.createElement("div");
	}
	abstract getViewType(): string;
	abstract getDisplayText(): string;
	getIcon(): string {
		return "";
	}
	async onOpen(): Promise<void> {}
	async onClose(): Promise<void> {}
	onResize(): void {}
}

export abstract class ItemView extends View {
	contentEl: HTMLElement;
	constructor(leaf: WorkspaceLeaf) {
		super(leaf);
		this.contentEl = document.createElement("div");
		this.containerEl.appendChild(this.contentEl);
	}
}

export type ViewCreator = (leaf: WorkspaceLeaf) => View;

export class Workspace extends Events {
	readonly viewCreators = new Map<string, ViewCreator>();
	readonly leaves: WorkspaceLeaf[] = [];
	readonly opened: { link: string; source: string; newLeaf: unknown }[] = [];
	activeFile: TFile | null = null;
	constructor(readonly app: App) {
		super();
	}
	getActiveFile(): TFile | null {
		return this.activeFile;
	}
	async openLinkText(link: string, source: string, newLeaf?: unknown): Promise<void> {
		this.opened.push({ link, source, newLeaf });
	}
	onLayoutReady(cb: () => unknown): void {
		void cb();
	}
	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return this.leaves.filter((l) => l.view?.getViewType() === type);
	}
	async ensureSideLeaf(type: string): Promise<WorkspaceLeaf> {
		const found = this.getLeavesOfType(type)[0];
		if (found) return found;
		const leaf = new WorkspaceLeaf(this.app);
		this.leaves.push(leaf);
		await leaf.setViewState({ type });
		return leaf;
	}
	async revealLeaf(): Promise<void> {}
	/** Test handle: make `path` the active note and tell the listeners, as Obsidian does. */
	openFile(path: string | null): void {
		this.activeFile = path === null ? null : new TFile(path);
		this.trigger("file-open", this.activeFile);
		this.trigger("active-leaf-change", null);
	}
}

export interface SecretStorage {
	getSecret(id: string): string | null;
	setSecret(id: string, secret: string): void;
	listSecrets(): string[];
}

export class MemorySecretStorage implements SecretStorage {
	readonly secrets = new Map<string, string>();
	getSecret(id: string): string | null {
		return this.secrets.get(id) ?? null;
	}
	setSecret(id: string, secret: string): void {
		if (!/^[a-z0-9-]+$/.test(id)) throw new Error("invalid secret id");
		this.secrets.set(id, secret);
	}
	listSecrets(): string[] {
		return [...this.secrets.keys()];
	}
}

export class App {
	workspace: Workspace;
	metadataCache = { resolvedLinks: {} as Record<string, Record<string, number>> };
	vault: { getName: () => string; configDir: string; adapter: { getBasePath?: () => string } } = {
		getName: () => "vault",
		configDir: ".obsidian",
		adapter: {},
	};
	secretStorage?: SecretStorage;
	constructor(options: { secrets?: boolean } = {}) {
		this.workspace = new Workspace(this);
		if (options.secrets !== false) this.secretStorage = new MemorySecretStorage();
	}
}

// -- plugin --------------------------------------------------------------------------------

export interface Command {
	id: string;
	name: string;
	callback?: () => unknown;
}

export class Plugin extends Component {
	readonly commands = new Map<string, Command>();
	readonly ribbon: { icon: string; title: string; el: HTMLElement }[] = [];
	readonly statusItems: HTMLElement[] = [];
	readonly settingTabs: PluginSettingTab[] = [];
	readonly views: string[] = [];
	data: unknown = null;
	constructor(readonly app: App, readonly manifest: { id: string; version: string }) {
		super();
	}
	addCommand(command: Command): Command {
		this.commands.set(command.id, command);
		this.register(() => this.commands.delete(command.id));
		return command;
	}
	addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = document.createElement("div");
		el.addEventListener("click", (evt) => callback(evt));
		this.ribbon.push({ icon, title, el });
		return el;
	}
	addStatusBarItem(): HTMLElement {
		const el = document.createElement("div");
		document.body.appendChild(el);
		this.statusItems.push(el);
		this.register(() => el.remove());
		return el;
	}
	addSettingTab(tab: PluginSettingTab): void {
		this.settingTabs.push(tab);
	}
	registerView(type: string, creator: ViewCreator): void {
		this.views.push(type);
		this.app.workspace.viewCreators.set(type, creator);
		this.register(() => {
			// as Obsidian does when a plugin is disabled: its views go with it
			for (const leaf of this.app.workspace.getLeavesOfType(type)) leaf.detach();
			this.app.workspace.viewCreators.delete(type);
		});
	}
	async loadData(): Promise<unknown> {
		return this.data === null ? null : JSON.parse(JSON.stringify(this.data));
	}
	async saveData(data: unknown): Promise<void> {
		this.data = JSON.parse(JSON.stringify(data));
	}
}

// -- modals ----------------------------------------------------------------------------------

export class Scope {
	readonly keys = new Map<string, (evt: KeyboardEvent) => unknown>();
	register(_modifiers: string[] | null, key: string | null, fn: (evt: KeyboardEvent) => unknown): void {
		this.keys.set(key ?? "", fn);
	}
}

export class Modal {
	containerEl = document.createElement("div");
	modalEl = document.createElement("div");
	titleEl = document.createElement("div");
	contentEl = document.createElement("div");
	scope = new Scope();
	isOpen = false;
	constructor(readonly app: App) {
		this.modalEl.append(this.titleEl, this.contentEl);
		this.containerEl.appendChild(this.modalEl);
	}
	open(): void {
		document.body.appendChild(this.containerEl);
		this.isOpen = true;
		this.onOpen();
	}
	close(): void {
		if (!this.isOpen) return;
		this.isOpen = false;
		this.onClose();
		this.containerEl.remove();
	}
	onOpen(): void {}
	onClose(): void {}
}

export abstract class SuggestModal<T> extends Modal {
	limit = 100;
	emptyStateText = "";
	placeholder = "";
	instructions: { command: string; purpose: string }[] = [];
	inputEl = document.createElement("input");
	resultContainerEl = document.createElement("div");
	shownSuggestions: T[] = [];
	constructor(app: App) {
		super(app);
		this.modalEl.prepend(this.inputEl);
		this.modalEl.appendChild(this.resultContainerEl);
		this.inputEl.addEventListener("input", () => void this.updateSuggestions());
	}
	setPlaceholder(text: string): void {
		this.placeholder = text;
	}
	setInstructions(instructions: { command: string; purpose: string }[]): void {
		this.instructions = instructions;
	}
	/** As Obsidian does on each input: ask for suggestions, render what came back. */
	async updateSuggestions(): Promise<void> {
		const items = (await this.getSuggestions(this.inputEl.value)).slice(0, this.limit);
		this.shownSuggestions = items;
		while (this.resultContainerEl.firstChild) this.resultContainerEl.removeChild(this.resultContainerEl.firstChild);
		for (const item of items) {
			const el = document.createElement("div");
			this.resultContainerEl.appendChild(el);
			this.renderSuggestion(item, el);
		}
	}
	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

// -- settings ----------------------------------------------------------------------------------

export class PluginSettingTab {
	containerEl = document.createElement("div");
	constructor(readonly app: App, readonly plugin: Plugin) {}
	display(): void {}
}

class ValueComponent<V> {
	private handler: ((value: V) => unknown) | null = null;
	constructor(public value: V) {}
	setValue(value: V): this {
		this.value = value;
		return this;
	}
	getValue(): V {
		return this.value;
	}
	onChange(handler: (value: V) => unknown): this {
		this.handler = handler;
		return this;
	}
	/** Test handle: the user changes the value. */
	async change(value: V): Promise<void> {
		this.value = value;
		await this.handler?.(value);
	}
}

export class TextComponent extends ValueComponent<string> {
	inputEl = document.createElement("input");
	constructor() {
		super("");
	}
	setPlaceholder(text: string): this {
		this.inputEl.placeholder = text;
		return this;
	}
}

export class TextAreaComponent extends TextComponent {}

export class ToggleComponent extends ValueComponent<boolean> {
	constructor() {
		super(false);
	}
}

export class ButtonComponent {
	buttonEl = document.createElement("button");
	private handler: (() => unknown) | null = null;
	setButtonText(text: string): this {
		this.buttonEl.textContent = text;
		return this;
	}
	setCta(): this {
		return this;
	}
	onClick(handler: () => unknown): this {
		this.handler = handler;
		return this;
	}
	async click(): Promise<void> {
		await this.handler?.();
	}
}

export class Setting {
	static all: Setting[] = [];
	settingEl = document.createElement("div");
	nameEl = document.createElement("div");
	descEl = document.createElement("div");
	controlEl = document.createElement("div");
	name = "";
	controls: (TextComponent | ToggleComponent | ButtonComponent)[] = [];
	constructor(containerEl: HTMLElement) {
		this.settingEl.append(this.nameEl, this.descEl, this.controlEl);
		containerEl.appendChild(this.settingEl);
		Setting.all.push(this);
	}
	setName(name: string): this {
		this.name = name;
		this.nameEl.textContent = name;
		return this;
	}
	setDesc(desc: string): this {
		this.descEl.textContent = desc;
		return this;
	}
	addText(cb: (text: TextComponent) => unknown): this {
		const text = new TextComponent();
		this.controls.push(text);
		cb(text);
		return this;
	}
	addTextArea(cb: (text: TextAreaComponent) => unknown): this {
		const text = new TextAreaComponent();
		this.controls.push(text);
		cb(text);
		return this;
	}
	addToggle(cb: (toggle: ToggleComponent) => unknown): this {
		const toggle = new ToggleComponent();
		this.controls.push(toggle);
		cb(toggle);
		return this;
	}
	addButton(cb: (button: ButtonComponent) => unknown): this {
		const button = new ButtonComponent();
		this.controls.push(button);
		cb(button);
		return this;
	}
}
