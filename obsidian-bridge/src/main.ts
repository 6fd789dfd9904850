// The plugin's lifecycle only: settings, the client, and registering each feature. Everything
// is registered through the plugin's register* helpers, so disabling it leaves nothing behind.

import { Platform, Plugin, type WorkspaceLeaf, requestUrl, requireApiVersion } from "obsidian";
import { DaemonClient, type HttpParams, type HttpResponse } from "./api/client";
import { AskModal, type LastAsk } from "./ask/modal";
import { type Found, findDaemon } from "./discovery";
import { Health } from "./health";
import { noteOpener } from "./links";
import { PairModal } from "./pairing";
import { RelatedView, VIEW_TYPE_RELATED } from "./related/view";
import { SearchModal } from "./search/modal";
import { DEFAULT_DAEMON_URL, type Settings, normaliseSettings } from "./settings";
import { CommonplaceSettingTab, type SettingsHost } from "./settings-tab";
import { StatusBar, StatusModal } from "./status/bar";
import { type SecretStorageLike, TokenStore } from "./token-store";

export default class CommonplacePlugin extends Plugin implements SettingsHost {
	settings!: Settings;
	tokens!: TokenStore;
	client!: DaemonClient;
	readonly health = new Health();
	/** The state (daemon, models, attention); its item is in the status bar on desktop only. */
	status!: StatusBar;
	/** The daemon found on this computer (desktop), used while the address is the default. */
	found: Found | null = null;
	private readonly lastAsk: LastAsk = { question: "", answer: null };

	async onload(): Promise<void> {
		this.settings = normaliseSettings(await this.loadData());
		this.tokens = new TokenStore(secretStorage(this), this.settings, () => this.saveSettings());
		await this.tokens.migrate();
		this.findDaemon();
		this.client = new DaemonClient({
			baseUrl: () => this.daemonUrl(),
			token: () => this.tokens.get(),
			fetch: (input, init) => window.fetch(input, init),
			request: (params) => viaRequestUrl(params),
			downHint: () =>
				Platform.isMobile
					? "On a phone, set the daemon address to your computer's Tailscale name (https://….ts.net) in Settings > Commonplace, with tailscale serve running there."
					: "Start it with: commonplace run",
			onOutcome: (error, path) => this.health.outcome(error, path),
		});
		const open = noteOpener(this.app);

		const item = Platform.isDesktopApp ? this.addStatusBarItem() : null;
		const status = new StatusBar(item, this.client, undefined, this.manifest.version);
		this.status = status;
		this.registerView(
			VIEW_TYPE_RELATED,
			(leaf: WorkspaceLeaf) =>
				new RelatedView(leaf, {
					client: this.client,
					settings: () => this.settings,
					saveSettings: () => this.saveSettings(),
					open,
					status: Platform.isDesktopApp ? null : status, // mobile: the state shows in the view
					openStatus: () => this.openStatus(),
				}),
		);
		this.addRibbonIcon("message-circle-question", "Ask your notes", () => this.openAsk());
		this.addCommand({ id: "ask", name: "Ask your notes", callback: () => this.openAsk() });
		this.addCommand({
			id: "search",
			name: "Search notes and attachments",
			callback: () =>
				new SearchModal(this.app, this.client, open, this.settings.searchMode, (mode) => {
					this.settings.searchMode = mode;
					void this.saveSettings();
				}).open(),
		});
		this.addCommand({ id: "related", name: "Show related notes", callback: () => void this.showRelated() });
		this.addCommand({ id: "status", name: "Show the daemon's state", callback: () => this.openStatus() });
		this.addCommand({ id: "pair", name: "Pair with the daemon", callback: () => void this.pair() });
		this.addSettingTab(new CommonplaceSettingTab(this.app, this, this));

		this.register(this.health.listen((path) => status.afterRequest(path, this.health.reachability)));
		if (item) this.registerDomEvent(item, "click", () => this.openStatus());
		this.registerDomEvent(window, "focus", () => status.focused());
		this.app.workspace.onLayoutReady(() => void status.refresh());
	}

	async saveSettings(): Promise<void> {
		await this.saveData(this.settings);
	}

	/** The typed address; while it is the default, the daemon found on this computer. */
	daemonUrl(): string {
		if (this.settings.daemonUrl === DEFAULT_DAEMON_URL && this.found) return this.found.url;
		return this.settings.daemonUrl;
	}

	findDaemon(): Found | null {
		const adapter = this.app.vault.adapter as { getBasePath?: () => string } | undefined;
		const base = typeof adapter?.getBasePath === "function" ? adapter.getBasePath() : null;
		this.found = findDaemon(base);
		return this.found;
	}

	async checkConnection(): Promise<string> {
		this.findDaemon();
		try {
			const state = await this.client.state();
			return `Connected: vault ${state.daemon.vault}, Commonplace ${state.daemon.version}.`;
		} catch (err) {
			return err instanceof Error ? err.message : String(err);
		} finally {
			void this.status.refresh();
		}
	}

	/** Test handle: how often the pairing modal asks whether the code was confirmed. */
	pairPollMs: number | undefined = undefined;

	/** Ask the daemon for a token of this device's own; resolves when the modal closes. */
	async pair(): Promise<string> {
		this.findDaemon();
		const modal = new PairModal(this.app, {
			client: this.client,
			vaultName: this.app.vault.getName(),
			storeToken: (token) => this.tokens.set(token),
			registerInterval: (id) => this.registerInterval(id),
			onPaired: () => void this.status.refresh(),
			pollMs: this.pairPollMs,
		});
		modal.open();
		return modal.done;
	}

	openAsk(): void {
		new AskModal(this.app, this.client, noteOpener(this.app), this.lastAsk).open();
	}

	openStatus(): void {
		new StatusModal(this.app, this.status).open();
	}

	async showRelated(): Promise<void> {
		const leaf = await this.app.workspace.ensureSideLeaf(VIEW_TYPE_RELATED, "right", { active: true, reveal: true });
		await this.app.workspace.revealLeaf(leaf);
	}
}

async function viaRequestUrl(params: HttpParams): Promise<HttpResponse> {
	const response = await requestUrl({ ...params, contentType: params.headers["Content-Type"] });
	return { status: response.status, text: response.text };
}

/** Obsidian's secret storage, where this version of the app has it (1.11.4 and later). */
function secretStorage(plugin: Plugin): SecretStorageLike | null {
	const store = (plugin.app as { secretStorage?: SecretStorageLike }).secretStorage;
	return requireApiVersion("1.11.4") && store && typeof store.getSecret === "function" ? store : null;
}
