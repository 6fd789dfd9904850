// The built main.js, loaded the way Obsidian loads it (CommonJS, `obsidian` provided by the
// app), with the stand-in: it must register its commands, view, ribbon icon, status item and
// settings tab, and leave nothing behind when the plugin is disabled. On desktop it may reach
// Node's fs, path, os and process (Electron has them), only to read the discovery file; as
// Obsidian mobile, nothing but `obsidian` exists: no require, no process, no Buffer, and the
// plugin must load and run every command all the same.
// This catches a broken bundle: a missing export, a module left unbundled, a top-level throw.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import * as nodeFs from "node:fs";
import * as nodeOs from "node:os";
import * as nodePath from "node:path";
import { join, resolve } from "node:path";
import vm from "node:vm";
import * as standIn from "obsidian";
import { describe, expect, it } from "vitest";
import { ANSWER, STATE, json } from "./helpers";

const MAIN = resolve(process.cwd(), "main.js"); // vitest runs in obsidian-bridge/
const NODE = new Set(["fs", "path", "os", "process"]);

interface Loaded {
	Plugin: new (app: unknown, manifest: unknown) => standIn.Plugin & Record<string, unknown>;
	required: string[];
}

function loadBundle(fetch: typeof globalThis.fetch, node: { env: Record<string, string> } | null): Loaded {
	if (!existsSync(MAIN)) throw new Error("main.js is not built: run `npm run build` first (npm test does not build)");
	const module = { exports: {} as Record<string, unknown> };
	const required: string[] = [];
	window.fetch = fetch;
	standIn.setRequestFetch(fetch as never);
	const globals: Record<string, unknown> = {
		module,
		exports: module.exports,
		require: (name: string) => {
			required.push(name);
			if (name === "obsidian") return standIn;
			if (node && NODE.has(name)) {
				if (name === "process") return { env: node.env, platform: "linux" };
				return { fs: nodeFs, path: nodePath, os: nodeOs }[name];
			}
			throw new Error(`main.js requires '${name}', which Obsidian does not provide here`);
		},
		window,
		document,
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
	};
	if (!node) globals.require = ((name: string) => (globals.requireOnMobile as (n: string) => unknown)(name)) as unknown;
	globals.requireOnMobile = (name: string) => {
		required.push(name);
		if (name === "obsidian") return standIn;
		throw new Error(`main.js requires '${name}' on mobile, where only 'obsidian' exists`);
	};
	const context = vm.createContext(globals);
	vm.runInContext(readFileSync(MAIN, "utf8"), context, { filename: "main.js" });
	const exported = module.exports.default ?? module.exports;
	expect(typeof exported).toBe("function");
	return { Plugin: exported as never, required };
}

const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("the built main.js", () => {
	it("on desktop: registers everything, finds the daemon, and leaves nothing behind", async () => {
		const requests: string[] = [];
		const fetch = (async (input: RequestInfo | URL) => {
			const url = new URL(String(input));
			requests.push(`${url.host}${url.pathname}`);
			if (url.pathname === "/api/related") return json({ results: [], mode: "vector", notice: null });
			throw new TypeError("Failed to fetch");
		}) as typeof globalThis.fetch;
		const state = mkdtempSync(join(nodeOs.tmpdir(), "cp-state-"));
		const vaultDir = mkdtempSync(join(nodeOs.tmpdir(), "cp-vault-"));
		mkdirSync(join(state, "commonplace", "daemons"), { recursive: true });
		writeFileSync(join(state, "commonplace", "daemons", "a.json"), JSON.stringify({ url: "http://127.0.0.1:9911", vault: vaultDir, version: "0.3.0" }));
		writeFileSync(join(state, "commonplace", "daemons", "b.json"), JSON.stringify({ url: "http://127.0.0.1:9922", vault: "/elsewhere", version: "0.3.0" }));
		const { Plugin, required } = loadBundle(fetch, { env: { XDG_STATE_HOME: state } });
		expect(new Set(required)).toEqual(new Set(["obsidian"])); // Node only when used, never at load
		const app = new standIn.App();
		app.vault.adapter.getBasePath = () => vaultDir;
		const plugin = new Plugin(app, { id: "commonplace", version: "0.1.0" });
		await plugin.onload();
		expect(new Set(required)).toEqual(new Set(["obsidian", ...NODE]));

		expect([...plugin.commands.keys()].sort()).toEqual(["ask", "pair", "related", "search", "status"]);
		expect(plugin.views).toEqual(["commonplace-related"]);
		expect(plugin.ribbon.map((r) => r.title)).toEqual(["Ask your notes"]);
		expect(plugin.statusItems).toHaveLength(1);
		expect(plugin.settingTabs).toHaveLength(1);

		// the daemon of this vault, found by the discovery file; it is down: the item says so
		await tick();
		expect(requests[0]).toBe("127.0.0.1:9911/api/state");
		expect(plugin.statusItems[0]?.textContent).toBe("Commonplace: daemon off");
		window.dispatchEvent(new Event("focus")); // within the backoff: not asked again
		await tick();
		expect(requests.filter((p) => p.endsWith("/api/state"))).toHaveLength(1);
		expect(standIn.Notice.shown.filter((m) => m.includes("commonplace run"))).toHaveLength(1);
		expect(standIn.requestUrlCalls.length).toBe(requests.length); // no fetch but Ask's stream

		// the related view opens from its command and follows the active note
		await plugin.commands.get("related")!.callback!();
		expect(app.workspace.getLeavesOfType("commonplace-related")).toHaveLength(1);
		app.workspace.openFile("Projects/Shed.md");
		await tick(400);
		expect(requests).toContain("127.0.0.1:9911/api/related");

		// the related request succeeded: the status item asked again (daemon back)
		const stateRequests = requests.filter((p) => p.endsWith("/api/state")).length;
		expect(stateRequests).toBe(2);

		// disabled: no listener, view, command or status item is left
		plugin.unload();
		expect(app.workspace.listenerCount()).toBe(0);
		expect(standIn.liveDomListeners).toBe(0);
		expect(standIn.liveIntervals.size).toBe(0);
		expect(app.workspace.getLeavesOfType("commonplace-related")).toHaveLength(0);
		expect(plugin.commands.size).toBe(0);
		expect(plugin.statusItems[0]?.isConnected).toBe(false);
		window.dispatchEvent(new Event("focus"));
		await tick();
		expect(requests.filter((p) => p.endsWith("/api/state"))).toHaveLength(stateRequests);
	});

	it("as Obsidian mobile: no Node at all, every command runs, the state shows in the view", async () => {
		standIn.setMobile(true);
		const requests: { path: string; via: string; auth: string }[] = [];
		let asFetch = false;
		const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
			const url = new URL(String(input));
			const auth = new Headers(init.headers).get("Authorization") ?? "";
			requests.push({ path: url.pathname, via: asFetch ? "fetch" : "requestUrl", auth });
			expect(url.origin).toBe("https://laptop.tail1234.ts.net");
			if (url.pathname === "/api/state") return json(STATE);
			if (url.pathname === "/api/search") return json({ results: [], mode: "hybrid", notice: null });
			if (url.pathname === "/api/related") return json({ results: [], mode: "vector", notice: null });
			if (url.pathname === "/api/ask") return new Response(`${JSON.stringify({ type: "delta", text: "The timber" })}\n${JSON.stringify(ANSWER)}\n`);
			if (url.pathname === "/api/pair/request") return json({ id: "rid", code: "111 222", expires_in: 300 });
			if (url.pathname === "/api/pair/poll") return json({ status: "waiting" });
			return json({ error: { code: "not_found", message: "no" } }, 404);
		}) as typeof globalThis.fetch;
		const { Plugin, required } = loadBundle(async (input, init) => {
			asFetch = true;
			try {
				return await fetch(input, init);
			} finally {
				asFetch = false;
			}
		}, null);
		standIn.setRequestFetch(fetch as never);
		const app = new standIn.App();
		(app.secretStorage as standIn.MemorySecretStorage).setSecret("commonplace-daemon-token", "phone-token");
		const plugin = new Plugin(app, { id: "commonplace", version: "0.1.0" });
		plugin.data = { daemonUrl: "https://laptop.tail1234.ts.net" };
		await plugin.onload();
		await tick();
		expect(plugin.statusItems).toHaveLength(0); // no status bar on mobile

		for (const id of ["related", "search", "ask", "status", "pair"]) await plugin.commands.get(id)!.callback!();
		await tick(50);
		const view = app.workspace.getLeavesOfType("commonplace-related")[0]!.view!;
		expect(view.containerEl.querySelector(".commonplace-view-status")?.textContent).toBe("Commonplace ✓");
		expect(document.querySelector(".commonplace-pair-code")?.textContent).toBe("111 222");
		expect(document.body.textContent).toContain("on the computer that runs the daemon");

		// Ask streams through fetch (CORS answered by the daemon for the app's origin)
		const input = document.querySelector<HTMLTextAreaElement>("textarea.commonplace-question")!;
		input.value = "When is the timber coming?";
		input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
		await tick(50);
		expect(requests.some((r) => r.path === "/api/ask" && r.via === "fetch")).toBe(true);
		expect(document.querySelector(".commonplace-output")?.textContent).toContain("Jewson");
		expect(requests.every((r) => r.auth === "Bearer phone-token")).toBe(true);
		expect(requests.filter((r) => r.via === "fetch").every((r) => r.path === "/api/ask")).toBe(true);
		expect(requests.some((r) => r.path === "/api/state" && r.via === "requestUrl")).toBe(true);
		expect(new Set(required)).toEqual(new Set(["obsidian"]));
		plugin.unload();
		expect(standIn.liveIntervals.size).toBe(0);
	});
});
