// The plugin's lifecycle only: settings, the client, and registering each feature. Everything
// is registered through the plugin's register* helpers, so disabling it leaves nothing behind.

import { Platform, Plugin, type WorkspaceLeaf, requireApiVersion } from "obsidian";
import { DaemonClient } from "./api/client";
import { AskModal, type LastAsk } from "./ask/modal";
import { Health } from "./health";
import { noteOpener } from "./links";
import { RelatedView, VIEW_TYPE_RELATED } from "./related/view";
import { SearchModal } from "./search/modal";
import { type Settings, normaliseSettings } from "./settings";
import { CommonplaceSettingTab, type SettingsHost } from "./settings-tab";
import { StatusBar, StatusModal } from "./status/bar";
import { type SecretStorageLike, TokenStore } from "./token-store";

export default class CommonplacePlugin extends Plugin implements SettingsHost {
	settings!: Settings;
	tokens!: TokenStore;
	client!: DaemonClient;
	readonly health = new Health();
	statusBar: StatusBar | null = null;
	private readonly lastAsk: LastAsk = { question: "", answer: null };

	async onload(): Promise<void> {
		this.settings = normaliseSettings(await this.loadData());
		this.tokens = new TokenStore(secretStorage(this), this.settings, () => this.saveSettings());
		await this.tokens.migrate();
		this.client = new DaemonClient({
			baseUrl: () => this.settings.daemonUrl,
			token: () => this.tokens.get(),
			fetch: (input, init) => fetch(input, init),
			onOutcome: (error, path) => this.health.outcome(error, path),
		});
		const open = noteOpener(this.app);

		this.registerView(
			VIEW_TYPE_RELATED,
			(leaf: WorkspaceLeaf) =>
				new RelatedView(leaf, { client: this.client, settings: () => this.settings, saveSettings: () => this.saveSettings(), open }),
		);
		this.addRibbonIcon("message-circle-question", "Ask your notes (Commonplace)", () => this.openAsk());
		this.addCommand({ id: "ask", name: "Ask your notes", callback: () => this.openAsk() });
		this.addCommand({
			id: "search",
			name: "Search notes",
			callback: () =>
				new SearchModal(this.app, this.client, open, this.settings.searchMode, (mode) => {
					this.settings.searchMode = mode;
					void this.saveSettings();
				}).open(),
		});
		this.addCommand({ id: "related", name: "Show related notes", callback: () => void this.showRelated() });
		this.addCommand({ id: "status", name: "Show the daemon's state", callback: () => this.openStatus() });
		this.addSettingTab(new CommonplaceSettingTab(this.app, this, this));

		if (Platform.isDesktopApp) {
			const bar = new StatusBar(this.addStatusBarItem(), this.client, undefined, this.manifest.version);
			this.statusBar = bar;
			this.registerDomEvent(bar.item, "click", () => this.openStatus());
			this.registerDomEvent(window, "focus", () => void bar.refresh());
			this.register(this.health.listen((path) => bar.afterRequest(path, this.health.reachability)));
			this.app.workspace.onLayoutReady(() => void bar.refresh());
		}
	}

	async saveSettings(): Promise<void> {
		await this.saveData(this.settings);
	}

	async checkConnection(): Promise<string> {
		try {
			const state = await this.client.state();
			return `Connected: vault ${state.daemon.vault}, Commonplace ${state.daemon.version}.`;
		} catch (err) {
			return err instanceof Error ? err.message : String(err);
		} finally {
			void this.statusBar?.refresh();
		}
	}

	openAsk(): void {
		new AskModal(this.app, this.client, noteOpener(this.app), this.lastAsk).open();
	}

	openStatus(): void {
		if (this.statusBar) new StatusModal(this.app, this.statusBar).open();
	}

	async showRelated(): Promise<void> {
		const leaf = await this.app.workspace.ensureSideLeaf(VIEW_TYPE_RELATED, "right", { active: true, reveal: true });
		await this.app.workspace.revealLeaf(leaf);
	}
}

/** Obsidian's secret storage, where this version of the app has it (1.11.4 and later). */
function secretStorage(plugin: Plugin): SecretStorageLike | null {
	const store = (plugin.app as { secretStorage?: SecretStorageLike }).secretStorage;
	return requireApiVersion("1.11.4") && store && typeof store.getSecret === "function" ? store : null;
}
