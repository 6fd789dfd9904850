import { App, Setting, TextComponent, setApiVersion } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";
import CommonplacePlugin from "../src/main";
import { DEFAULT_SETTINGS, normaliseSettings, validUrl } from "../src/settings";
import { SECRET_ID, TokenStore } from "../src/token-store";

const MANIFEST = { id: "commonplace", version: "0.1.0" };

async function loaded(app: App, data: unknown = null): Promise<CommonplacePlugin> {
	const plugin = new CommonplacePlugin(app as never, MANIFEST as never);
	(plugin as unknown as { data: unknown }).data = data;
	await plugin.onload();
	return plugin;
}

function settingNamed(name: string): Setting {
	const found = Setting.all.filter((s) => s.name === name).pop();
	if (!found) throw new Error(`no setting ${name}`);
	return found;
}

describe("settings", () => {
	afterEach(() => setApiVersion("1.12.0"));

	it("fall back to defaults for anything missing or of the wrong type", () => {
		expect(normaliseSettings(null)).toEqual(DEFAULT_SETTINGS);
		const odd = normaliseSettings({ daemonUrl: "ftp://x", excludeFolders: ["A", 3], hideLinked: "yes", relatedLimit: 500, searchMode: "fuzzy" });
		expect(odd).toEqual({ ...DEFAULT_SETTINGS, excludeFolders: ["A"], relatedLimit: 50 });
		expect(validUrl(" http://localhost:9000/ ")).toBe("http://localhost:9000");
		expect(validUrl("not a url")).toBeNull();
	});

	it("persist: what the settings tab changes, the next start reads", async () => {
		const app = new App();
		const plugin = await loaded(app);
		plugin.settingTabs[0]!.display();
		await (settingNamed("Daemon address").controls[0] as TextComponent).change("http://127.0.0.1:9999/");
		await (settingNamed("Folders to leave out of related notes").controls[0] as TextComponent).change("Inbox\nArchive/Old/");
		await (settingNamed("Hide notes already linked").controls[0] as unknown as TextComponent).change(true as never);
		await (settingNamed("Token").controls[0] as TextComponent).change("  tok-123 ");
		const data = (plugin as unknown as { data: Record<string, unknown> }).data;
		expect(data).toMatchObject({ daemonUrl: "http://127.0.0.1:9999", excludeFolders: ["Inbox", "Archive/Old"], hideLinked: true, token: "" });
		plugin.unload();
		const again = await loaded(app, data);
		expect(again.settings.daemonUrl).toBe("http://127.0.0.1:9999");
		expect(again.settings.excludeFolders).toEqual(["Inbox", "Archive/Old"]);
		expect(again.tokens.get()).toBe("tok-123");
		expect(again.client.baseUrl).toBe("http://127.0.0.1:9999");
		again.unload();
	});

	it("an address that is not http(s) is not saved", async () => {
		const plugin = await loaded(new App());
		plugin.settingTabs[0]!.display();
		const text = settingNamed("Daemon address").controls[0] as TextComponent;
		await text.change("localhost:8765");
		expect(plugin.settings.daemonUrl).toBe("http://127.0.0.1:8765");
		expect(text.inputEl.classList.contains("commonplace-invalid")).toBe(true);
		plugin.unload();
	});

	it("keep the token in Obsidian's secret storage, never in data.json, where the app has it", async () => {
		const app = new App();
		const plugin = await loaded(app);
		plugin.settingTabs[0]!.display();
		await (settingNamed("Token").controls[0] as TextComponent).change("tok-secure");
		expect(app.secretStorage?.getSecret(SECRET_ID)).toBe("tok-secure");
		expect(JSON.stringify((plugin as unknown as { data: unknown }).data)).not.toContain("tok-secure");
		expect(settingNamed("Token").descEl.textContent).toContain("secret storage");
		plugin.unload();
	});

	it("keep it in data.json, with a warning, on an app without secret storage", async () => {
		setApiVersion("1.8.0");
		const app = new App({ secrets: false });
		const plugin = await loaded(app);
		plugin.settingTabs[0]!.display();
		await (settingNamed("Token").controls[0] as TextComponent).change("tok-plain");
		expect((plugin as unknown as { data: { token: string } }).data.token).toBe("tok-plain");
		const desc = settingNamed("Token").descEl;
		expect(desc.textContent).toContain("data.json");
		expect(desc.classList.contains("mod-warning")).toBe(true);
		plugin.unload();
	});

	it("move a token from data.json into secret storage once the app has it", async () => {
		const app = new App();
		const plugin = await loaded(app, { token: "old-tok" });
		expect(app.secretStorage?.getSecret(SECRET_ID)).toBe("old-tok");
		expect((plugin as unknown as { data: { token: string } }).data.token).toBe("");
		expect(plugin.tokens.get()).toBe("old-tok");
		plugin.unload();
	});

	it("the token store trims what is pasted", async () => {
		const data = { token: "" };
		const store = new TokenStore(null, data, async () => {});
		await store.set("  abc\n");
		expect(store.get()).toBe("abc");
	});
});
