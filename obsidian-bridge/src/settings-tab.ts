// Settings > Commonplace: the daemon's address, its token, and what related notes leave out.

import { type App, type Plugin, PluginSettingTab, Setting } from "obsidian";
import { parseFolders } from "./related/model";
import { DEFAULT_DAEMON_URL, type Settings, validUrl } from "./settings";
import type { TokenStore } from "./token-store";

export interface SettingsHost {
	settings: Settings;
	tokens: TokenStore;
	saveSettings(): Promise<void>;
	checkConnection(): Promise<string>;
}

export class CommonplaceSettingTab extends PluginSettingTab {
	constructor(app: App, plugin: Plugin, private readonly host: SettingsHost) {
		super(app, plugin);
	}

	display(): void {
		const { containerEl } = this;
		while (containerEl.firstChild) containerEl.removeChild(containerEl.firstChild);
		const host = this.host;

		new Setting(containerEl)
			.setName("Daemon address")
			.setDesc(`Where \`commonplace run\` listens (default ${DEFAULT_DAEMON_URL}).`)
			.addText((text) =>
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

		const where = host.tokens.secure
			? "Kept in Obsidian's secret storage on this device, not in the vault."
			: "This version of Obsidian has no secret storage: the token is kept in the vault, in .obsidian/plugins/commonplace/data.json, and travels wherever the vault is synced. Update Obsidian (1.11.4 or later) to keep it out of the vault.";
		const tokenSetting = new Setting(containerEl)
			.setName("Token")
			.setDesc(`Run \`commonplace token\` on this computer and paste what it prints. ${where}`)
			.addText((text) => {
				text.inputEl.type = "password";
				text.setPlaceholder("paste the token").setValue(host.tokens.get()).onChange(async (value) => {
					await host.tokens.set(value);
				});
			});
		if (!host.tokens.secure) tokenSetting.descEl.classList.add("mod-warning");

		const status = new Setting(containerEl).setName("Check the connection").setDesc("Asks the daemon for its state with this address and token.");
		status.addButton((button) =>
			button.setButtonText("Check").onClick(async () => {
				status.setDesc("Asking…");
				status.setDesc(await host.checkConnection());
			}),
		);

		new Setting(containerEl)
			.setName("Folders to leave out of related notes")
			.setDesc("One folder per line, e.g. Inbox or Archive/Old.")
			.addTextArea((area) =>
				area
					.setPlaceholder("Inbox\nDigests")
					.setValue(host.settings.excludeFolders.join("\n"))
					.onChange(async (value) => {
						host.settings.excludeFolders = parseFolders(value);
						await host.saveSettings();
					}),
			);

		new Setting(containerEl)
			.setName("Hide notes already linked")
			.setDesc("In related notes, leave out the notes this note links to or is linked from (otherwise they are marked).")
			.addToggle((toggle) =>
				toggle.setValue(host.settings.hideLinked).onChange(async (value) => {
					host.settings.hideLinked = value;
					await host.saveSettings();
				}),
			);
	}
}
