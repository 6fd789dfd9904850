// Settings > Commonplace: the daemon's address, pairing (or a pasted token), what related notes
// leave out, and what the plugin asks the daemon when (it talks to nothing else).
//
// One list of settings serves both ways Obsidian shows a tab: `display()` (every version this
// plugin supports) and, from Obsidian 1.13, `getSettingDefinitions()`, which also puts them in
// the app's settings search. Each entry is a name, a description and what to add to its row.

import { type App, Platform, type Plugin, PluginSettingTab, Setting } from "obsidian";
import type { Found } from "./discovery";
import { parseFolders } from "./related/model";
import { DEFAULT_DAEMON_URL, type Settings, validUrl } from "./settings";
import type { TokenStore } from "./token-store";

export interface SettingsHost {
	settings: Settings;
	tokens: TokenStore;
	saveSettings(): Promise<void>;
	checkConnection(): Promise<string>;
	pair(): Promise<string>;
	daemonUrl(): string;
	findDaemon(): Found | null;
}

export const NETWORK_NOTE =
	"The plugin talks only to the Commonplace daemon at this address, never to another server. It asks for the daemon's state when you open Obsidian or return to it (at most every 5 seconds, and less often while the daemon does not answer), after a search, a question or related notes, and when you click the state; while pairing, every 2 seconds until the code is confirmed. There is no other background request.";

export interface SettingEntry {
	name: string;
	desc: string;
	render: (setting: Setting) => void;
}

export class CommonplaceSettingTab extends PluginSettingTab {
	constructor(
		app: App,
		plugin: Plugin,
		private readonly host: SettingsHost,
	) {
		super(app, plugin);
	}

	display(): void {
		const { containerEl } = this;
		while (containerEl.firstChild) containerEl.removeChild(containerEl.firstChild);
		for (const entry of this.entries()) {
			const setting = new Setting(containerEl).setName(entry.name).setDesc(entry.desc);
			entry.render(setting);
		}
	}

	getSettingDefinitions(): { name: string; desc: string; render: (setting: Setting) => void }[] {
		return this.entries();
	}

	entries(): SettingEntry[] {
		const host = this.host;
		const found = Platform.isDesktopApp ? host.findDaemon() : null;
		const addressHelp = Platform.isMobile
			? `On a phone: the computer's Tailscale name, for example https://laptop.tail1234.ts.net (the daemon's page through tailscale serve). Default ${DEFAULT_DAEMON_URL}.`
			: found
				? `Found the daemon on this computer at ${found.url}; it is used while this is left at the default (${DEFAULT_DAEMON_URL}).`
				: `Where the daemon listens (default ${DEFAULT_DAEMON_URL}). Left at the default, the plugin looks for a daemon running on this computer.`;
		const where = host.tokens.secure
			? "Kept in Obsidian's secret storage on this device, not in the vault."
			: `This version of Obsidian has no secret storage: the token is kept in the vault, in ${this.app.vault.configDir}/plugins/commonplace/data.json, and travels wherever the vault is synced. Update Obsidian (1.11.4 or later) to keep it out of the vault.`;
		const paired = host.tokens.get() ? "This device has a token. Pair again to get a new one." : "Not paired yet.";
		return [
			{
				name: "Daemon address",
				desc: addressHelp,
				render: (setting) => {
					setting.addText((text) =>
						text
							.setPlaceholder(DEFAULT_DAEMON_URL)
							.setValue(host.settings.daemonUrl)
							.onChange(async (value) => {
								const url = validUrl(value || DEFAULT_DAEMON_URL);
								text.inputEl.classList.toggle("commonplace-invalid", url === null);
								if (url === null) return; // keep the last good address until this one is
								host.settings.daemonUrl = url;
								await host.saveSettings();
							}),
					);
				},
			},
			{
				name: "Pair with the daemon",
				desc: `${paired} The daemon shows a code; confirm it on the computer with the pair command or on the phone page, and this device gets a token of its own.`,
				render: (setting) => {
					setting.addButton((button) =>
						button
							.setButtonText("Pair")
							.setCta()
							.onClick(async () => {
								const outcome = await host.pair();
								if (outcome === "paired") setting.setDesc("Paired: this device has a token of its own.");
							}),
					);
				},
			},
			{
				name: "Token",
				desc: `Filled in by pairing. Or paste the output of the token command run on the computer. ${where}`,
				render: (setting) => {
					setting.addText((text) => {
						text.inputEl.type = "password";
						text.setPlaceholder("Filled in by pairing")
							.setValue(host.tokens.get())
							.onChange(async (value) => {
								await host.tokens.set(value);
							});
					});
					if (!host.tokens.secure) setting.descEl.classList.add("mod-warning");
				},
			},
			{
				name: "Check the connection",
				desc: "Asks the daemon for its state with this address and token.",
				render: (setting) => {
					setting.addButton((button) =>
						button.setButtonText("Check").onClick(async () => {
							setting.setDesc("Asking…");
							setting.setDesc(await host.checkConnection());
						}),
					);
				},
			},
			{
				name: "Folders to leave out of related notes",
				desc: "One folder per line, for example the inbox or an archive folder.",
				render: (setting) => {
					setting.addTextArea((area) =>
						area
							.setPlaceholder("Inbox")
							.setValue(host.settings.excludeFolders.join("\n"))
							.onChange(async (value) => {
								host.settings.excludeFolders = parseFolders(value);
								await host.saveSettings();
							}),
					);
				},
			},
			{
				name: "Hide notes already linked",
				desc: "In related notes, leave out the notes this note links to or is linked from (otherwise they are marked).",
				render: (setting) => {
					setting.addToggle((toggle) =>
						toggle.setValue(host.settings.hideLinked).onChange(async (value) => {
							host.settings.hideLinked = value;
							await host.saveSettings();
						}),
					);
				},
			},
			{ name: "Network use", desc: NETWORK_NOTE, render: () => {} },
		];
	}
}
