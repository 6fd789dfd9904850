// The "Related notes" side view: for the active note, the closest other notes by the daemon's
// search, one entry per note with the passage (and heading) that matched; a click opens it there.

import { ItemView, type TFile, type WorkspaceLeaf, setIcon } from "obsidian";
import type { DaemonClient } from "../api/client";
import { clear, clickable, el, isShown } from "../dom";
import { type NoteOpener, lastHeading, wantsNewTab } from "../links";
import type { Settings } from "../settings";
import type { StatusBar } from "../status/bar";
import { RelatedController, type RelatedState } from "./controller";
import { linkedPaths, relatedItems } from "./model";

export const VIEW_TYPE_RELATED = "commonplace-related";

export interface RelatedDeps {
	client: DaemonClient;
	settings: () => Settings;
	saveSettings: () => Promise<void>;
	open: NoteOpener;
	/** Mobile has no status bar: the daemon's state shows at the top of this view instead. */
	status?: StatusBar | null;
	openStatus?: () => void;
}

export class RelatedView extends ItemView {
	readonly controller: RelatedController;
	private header!: HTMLElement;
	private list!: HTMLElement;
	private pinButton!: HTMLElement;
	private linkedButton!: HTMLElement;
	private last: RelatedState = { kind: "empty" };

	constructor(leaf: WorkspaceLeaf, private readonly deps: RelatedDeps) {
		super(leaf);
		this.controller = new RelatedController({
			fetch: (path, signal) => {
				const { excludeFolders, relatedLimit } = this.deps.settings();
				return this.deps.client.related(path, { exclude: excludeFolders, limit: relatedLimit }, signal);
			},
			render: (state) => this.render(state),
			visible: () => isShown(this.contentEl),
		});
	}

	getViewType(): string {
		return VIEW_TYPE_RELATED;
	}

	getDisplayText(): string {
		return "Related notes";
	}

	getIcon(): string {
		return "waypoints";
	}

	async onOpen(): Promise<void> {
		const root = this.contentEl;
		clear(root);
		root.classList.add("commonplace-related");
		const status = this.deps.status;
		if (status) {
			const line = el(root, "div", { cls: "commonplace-view-status mod-clickable" });
			const draw = (): void => {
				const d = status.describe();
				line.textContent = d.text;
				line.dataset.level = d.level;
			};
			draw();
			this.register(status.onChange(draw));
			clickable(line, () => this.deps.openStatus?.());
		}
		const bar = el(root, "div", { cls: "commonplace-related-bar" });
		this.header = el(bar, "div", { cls: "commonplace-related-title", text: "No note open" });
		this.linkedButton = el(bar, "div", { cls: "clickable-icon", attr: { "aria-label": "Hide notes already linked" } });
		setIcon(this.linkedButton, "link");
		clickable(this.linkedButton, () => void this.toggleLinked());
		this.pinButton = el(bar, "div", { cls: "clickable-icon", attr: { "aria-label": "Pin to this note" } });
		setIcon(this.pinButton, "pin");
		clickable(this.pinButton, () => this.togglePin());
		const refresh = el(bar, "div", { cls: "clickable-icon", attr: { "aria-label": "Refresh" } });
		setIcon(refresh, "refresh-cw");
		clickable(refresh, () => this.controller.refresh());
		this.list = el(root, "div", { cls: "commonplace-related-list" });
		this.updateButtons();
		const { workspace } = this.app;
		this.registerEvent(workspace.on("active-leaf-change", () => this.follow(workspace.getActiveFile())));
		this.registerEvent(workspace.on("file-open", (file: TFile | null) => this.follow(file)));
		this.registerEvent(workspace.on("layout-change", () => this.controller.shownAgain()));
		this.register(() => this.controller.dispose());
		this.follow(workspace.getActiveFile());
	}

	async onClose(): Promise<void> {
		this.controller.dispose();
	}

	onResize(): void {
		this.controller.shownAgain(); // a hidden sidebar tab becoming visible resizes the view
	}

	togglePin(): void {
		this.controller.setPinned(!this.controller.pinned, this.app.workspace.getActiveFile()?.path ?? null);
		this.updateButtons();
	}

	async toggleLinked(): Promise<void> {
		const settings = this.deps.settings();
		settings.hideLinked = !settings.hideLinked;
		await this.deps.saveSettings();
		this.updateButtons();
		this.render(this.last);
	}

	private follow(file: TFile | null): void {
		if (file && file.extension === "md") this.controller.noteChanged(file.path);
	}

	private updateButtons(): void {
		this.pinButton.classList.toggle("is-active", this.controller.pinned);
		this.linkedButton.classList.toggle("is-active", this.deps.settings().hideLinked);
		this.linkedButton.setAttribute("aria-label", this.deps.settings().hideLinked ? "Show notes already linked" : "Hide notes already linked");
	}

	render(state: RelatedState): void {
		this.last = state;
		clear(this.list);
		if (state.kind === "empty") return;
		this.header.textContent = `Related to ${state.path.replace(/\.md$/, "")}`;
		if (state.kind === "loading") {
			el(this.list, "div", { cls: "commonplace-muted", text: "Looking…" });
			return;
		}
		if (state.kind === "error") {
			el(this.list, "div", { cls: "commonplace-error", text: state.message });
			return;
		}
		const settings = this.deps.settings();
		const items = relatedItems(state.result.hits, {
			current: state.path,
			linked: linkedPaths(this.app.metadataCache.resolvedLinks, state.path),
			hideLinked: settings.hideLinked,
			exclude: settings.excludeFolders,
		});
		if (state.result.notice) el(this.list, "div", { cls: "commonplace-notice", text: state.result.notice });
		if (!items.length) el(this.list, "div", { cls: "commonplace-muted", text: "No related notes found." });
		for (const item of items) {
			const row = el(this.list, "div", { cls: item.linked ? "commonplace-related-item is-linked" : "commonplace-related-item" });
			const title = el(row, "a", { cls: item.attachment ? "commonplace-related-name is-attachment" : "commonplace-related-name", text: item.attachment ? item.label : item.title });
			if (item.linked) el(row, "span", { cls: "commonplace-badge", text: "linked" });
			const heading = lastHeading(item.heading);
			if (heading) el(row, "div", { cls: "commonplace-related-heading", text: heading });
			if (item.snippet) el(row, "div", { cls: "commonplace-related-snippet", text: item.snippet });
			clickable(title, (evt) => void this.deps.open(item.path, item.heading, wantsNewTab(evt), item.page));
		}
	}
}
