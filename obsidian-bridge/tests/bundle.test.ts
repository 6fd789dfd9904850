// The built main.js, loaded the way Obsidian loads it (CommonJS, `obsidian` provided by the
// app, nothing else), with the stand-in: it must register its commands, view, ribbon icon,
// status item and settings tab, and leave nothing behind when the plugin is disabled.
// This catches a broken bundle: a missing export, a module left unbundled, a top-level throw.

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import vm from "node:vm";
import * as standIn from "obsidian";
import { describe, expect, it } from "vitest";
import { json } from "./helpers";

const MAIN = resolve(process.cwd(), "main.js"); // vitest runs in obsidian-bridge/

function loadBundle(fetch: typeof globalThis.fetch): new (app: unknown, manifest: unknown) => standIn.Plugin & Record<string, unknown> {
	if (!existsSync(MAIN)) throw new Error("main.js is not built: run `npm run build` first (npm test does not build)");
	const module = { exports: {} as Record<string, unknown> };
	const required: string[] = [];
	const context = vm.createContext({
		module,
		exports: module.exports,
		require: (name: string) => {
			required.push(name);
			if (name === "obsidian") return standIn;
			throw new Error(`main.js requires '${name}', which Obsidian does not provide`);
		},
		window,
		document,
		fetch,
		console,
		setTimeout,
		clearTimeout,
		AbortController,
		DOMException,
		TextDecoder,
		TextEncoder,
		URL,
		URLSearchParams,
		Event,
		KeyboardEvent,
		MouseEvent,
		Promise,
	});
	vm.runInContext(readFileSync(MAIN, "utf8"), context, { filename: "main.js" });
	expect(new Set(required)).toEqual(new Set(["obsidian"]));
	const exported = module.exports.default ?? module.exports;
	expect(typeof exported).toBe("function");
	return exported as never;
}

describe("the built main.js", () => {
	it("registers its commands, view, ribbon icon, status item and settings tab", async () => {
		const requests: string[] = [];
		const fetch = (async (input: RequestInfo | URL) => {
			const url = new URL(String(input));
			requests.push(url.pathname);
			if (url.pathname === "/api/related") return json({ results: [], mode: "vector", notice: null });
			throw new TypeError("Failed to fetch");
		}) as typeof globalThis.fetch;
		const Plugin = loadBundle(fetch);
		const app = new standIn.App();
		const plugin = new Plugin(app, { id: "commonplace", version: "0.1.0" });
		await plugin.onload();

		expect([...plugin.commands.keys()].sort()).toEqual(["ask", "related", "search", "status"]);
		expect(plugin.views).toEqual(["commonplace-related"]);
		expect(plugin.ribbon.map((r) => r.title)).toEqual(["Ask your notes (Commonplace)"]);
		expect(plugin.statusItems).toHaveLength(1);
		expect(plugin.settingTabs).toHaveLength(1);

		// the daemon is down: the status item says so, and one notice says what to run
		await new Promise((r) => setTimeout(r, 0));
		expect(plugin.statusItems[0]?.textContent).toBe("Commonplace: daemon off");
		window.dispatchEvent(new Event("focus"));
		await new Promise((r) => setTimeout(r, 0));
		expect(requests.filter((p) => p === "/api/state")).toHaveLength(2);
		expect(standIn.Notice.shown.filter((m) => m.includes("commonplace run"))).toHaveLength(1);

		// the related view opens from its command and follows the active note
		await plugin.commands.get("related")!.callback!();
		expect(app.workspace.getLeavesOfType("commonplace-related")).toHaveLength(1);
		app.workspace.openFile("Projects/Shed.md");
		await new Promise((r) => setTimeout(r, 400));
		expect(requests).toContain("/api/related");

		// the related request succeeded: the status item asked again (daemon back)
		const stateRequests = requests.filter((p) => p === "/api/state").length;
		expect(stateRequests).toBe(3);

		// disabled: no listener, view, command or status item is left
		plugin.unload();
		expect(app.workspace.listenerCount()).toBe(0);
		expect(standIn.liveDomListeners).toBe(0);
		expect(app.workspace.getLeavesOfType("commonplace-related")).toHaveLength(0);
		expect(plugin.commands.size).toBe(0);
		expect(plugin.statusItems[0]?.isConnected).toBe(false);
		window.dispatchEvent(new Event("focus"));
		await new Promise((r) => setTimeout(r, 0));
		expect(requests.filter((p) => p === "/api/state")).toHaveLength(stateRequests);
	});
});
