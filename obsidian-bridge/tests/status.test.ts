import { Notice } from "obsidian";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DaemonError } from "../src/api/client";
import { parseState } from "../src/api/types";
import { Health } from "../src/health";
import { StatusBar } from "../src/status/bar";
import { describe as describeState } from "../src/status/describe";
import { STATE, apiError, fakeDaemon, json, makeClient } from "./helpers";

const URL = "http://127.0.0.1:8765";
const NOW = new Date("2026-10-26T09:30:00+00:00");

/** A daemon from 0.2 on: the model server in `model` beside the old `ollama`. */
const NEW_STATE = {
	...STATE,
	model: { backend: "openai", server: "LM Studio", host: "http://127.0.0.1:1234/v1", reachable: true, error: "", why: "[model] backend = 'openai'", line: "LM Studio at http://127.0.0.1:1234/v1 · qwen2.5-7b", models: { "qwen2.5-7b": true } },
};

function newState(patch: (s: typeof NEW_STATE) => void = () => {}) {
	const copy = structuredClone(NEW_STATE);
	patch(copy);
	return { kind: "state" as const, state: parseState(copy) };
}

function state(patch: (s: typeof STATE) => void = () => {}) {
	const copy = structuredClone(STATE);
	patch(copy);
	return { kind: "state" as const, state: parseState(copy) };
}

describe("the status text for each daemon state", () => {
	it.each([
		["not asked yet", { kind: "unknown" as const }, "Commonplace …", "warn"],
		["daemon down", { kind: "error" as const, error: new DaemonError("down", "not answering") }, "Commonplace: daemon off", "fail"],
		["token refused", { kind: "error" as const, error: new DaemonError("auth", "The token was refused: run 'commonplace token'") }, "Commonplace: token needed", "fail"],
		["all well", state(), "Commonplace ✓", "ok"],
		["captures waiting", state((s) => (s.captures_waiting = 3)), "Commonplace ✓ · 3 waiting", "ok"],
		["Ollama down", state((s) => Object.assign(s.ollama, { reachable: false, models: {}, error: "connection refused" })), "Commonplace: model off", "fail"],
		["the built-in model down", newState((s) => Object.assign(s.model, { reachable: false, models: {}, error: "The built-in model is not running" })), "Commonplace: model off", "fail"],
		["LM Studio's model missing", newState((s) => Object.assign(s.model, { models: { "qwen2.5-7b": false } })), "Commonplace: model missing", "fail"],
		["a model missing", state((s) => (s.ollama.models["nomic-embed-text"] = false)), "Commonplace: model missing", "fail"],
	])("%s", (_name, observation, text, level) => {
		const d = describeState(observation, URL, NOW);
		expect([d.text, d.level]).toEqual([text, level]);
	});

	it("says what to run for each problem, as doctor does", () => {
		const down = describeState({ kind: "error", error: new DaemonError("down", "x") }, URL, NOW);
		expect(down.lines[0]?.text).toContain("run: commonplace run");
		const noOllama = describeState(state((s) => Object.assign(s.ollama, { reachable: false, models: {} })), URL, NOW);
		expect(noOllama.lines.find((l) => l.label === "model")?.text).toContain("run: ollama serve");
		const lmStudio = describeState(newState((s) => Object.assign(s.model, { reachable: false, error: "LM Studio at http://127.0.0.1:1234 did not answer: start its server (Developer tab, or `lms server start`) or set [openai] base_url." })), URL, NOW);
		const line = lmStudio.lines.find((l) => l.label === "model")?.text ?? "";
		expect(line).toContain("LM Studio at http://127.0.0.1:1234 did not answer");
		expect(line).not.toContain("ollama");
		const missing = describeState(state((s) => (s.ollama.models["nomic-embed-text"] = false)), URL, NOW);
		expect(missing.lines.filter((l) => l.level === "fail").map((l) => l.text)).toEqual(["nomic-embed-text is not pulled; run: ollama pull nomic-embed-text"]);
		const token = describeState({ kind: "error", error: new DaemonError("auth", "The token was refused: run 'commonplace token'") }, URL, NOW);
		expect(token.lines[0]?.text).toContain("commonplace token");
	});

	it("names the daemon's version, which /api/state reports", () => {
		const d = describeState(state((s) => (s.daemon.version = "0.2.0")), URL, NOW);
		expect(d.lines.find((l) => l.label === "daemon")?.text).toBe(`running at ${URL} (version 0.2.0), vault ${STATE.daemon.vault}`);
	});

	it("says when the plugin and the daemon are of two versions, and where the daemon's plugin is", () => {
		const same = describeState(state((s) => (s.daemon.version = "0.2.0")), URL, NOW, "0.2.0");
		expect(same.lines.some((l) => l.label === "plugin")).toBe(false);
		const older = describeState(state((s) => (s.daemon.version = "0.2.0")), URL, NOW, "0.1.0");
		const line = older.lines.find((l) => l.label === "plugin");
		expect(line?.level).toBe("warn");
		expect(line?.text).toContain("this plugin is version 0.1.0, the daemon 0.2.0");
		expect(line?.text).toContain(`${URL}/obsidian-plugin/`);
	});

	it("shows the last index time and what waits for embeddings", () => {
		const d = describeState(state((s) => (s.index.vectors_pending = 2)), URL, NOW);
		const line = d.lines.find((l) => l.label === "index");
		expect(line?.text).toBe("24 notes, 120 chunks; last indexed 30 min ago; 2 note(s) wait for embeddings (keyword search finds them)");
		expect(line?.level).toBe("warn");
	});

	it("counts captures that could not be tidied", () => {
		const d = describeState(state((s) => (s.stages.tidy.failing = [{ path: "Inbox/x.md" }] as never[])), URL, NOW);
		expect(d.lines.find((l) => l.label === "tidy")?.text).toContain("1 capture(s) could not be tidied");
		expect([d.text, d.level]).toEqual(["Commonplace ✓ · 1 to look at", "warn"]);
	});

	it("shows what needs attention, with what to do", () => {
		const entry = { source: "tidy", path: "Inbox/x.md", code: "unreadable", reason: "cannot be read (Permission denied)", action: "let this user read it (chmod u+r)", level: "warn" };
		const d = describeState(state((s) => Object.assign(s, { attention: [entry] })), URL, NOW);
		expect(d.lines.find((l) => l.label === "tidy")).toEqual({ level: "warn", label: "tidy", text: "Inbox/x.md: cannot be read (Permission denied); let this user read it (chmod u+r)" });
		expect(d.text).toBe("Commonplace ✓ · 1 to look at");
	});
});

describe("the status bar", () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it("does not poll: no request goes out while nothing happens", async () => {
		const fake = fakeDaemon({ "GET /api/state": () => json(STATE) });
		const bar = new StatusBar(document.createElement("div"), makeClient(fake.fetch));
		await bar.refresh();
		expect(bar.item.textContent).toBe("Commonplace ✓");
		await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
		expect(fake.requests).toHaveLength(1);
	});

	it("refreshes after a request, at once when reachability changed, else at most every few seconds", async () => {
		const fake = fakeDaemon({ "GET /api/state": () => json(STATE) });
		let now = 0;
		const bar = new StatusBar(document.createElement("div"), makeClient(fake.fetch), () => now);
		await bar.refresh();
		bar.afterRequest("/api/search", "unknown"); // same as before: too soon
		await vi.advanceTimersByTimeAsync(0);
		expect(fake.requests).toHaveLength(1);
		bar.afterRequest("/api/search", "down"); // changed
		await vi.advanceTimersByTimeAsync(0);
		expect(fake.requests).toHaveLength(2);
		now += 6000;
		bar.afterRequest("/api/search", "down");
		await vi.advanceTimersByTimeAsync(0);
		expect(fake.requests).toHaveLength(3);
		bar.afterRequest("/api/state", "ok"); // its own request never triggers another
		await vi.advanceTimersByTimeAsync(0);
		expect(fake.requests).toHaveLength(3);
	});

	it("shows a refused token", async () => {
		const fake = fakeDaemon({ "GET /api/state": () => apiError(401, "bad_token", "wrong token") });
		const bar = new StatusBar(document.createElement("div"), makeClient(fake.fetch));
		await bar.refresh();
		expect(bar.item.textContent).toBe("Commonplace: token needed");
		expect(bar.item.dataset.level).toBe("fail");
	});
});

describe("when the daemon is down", () => {
	it("shows one notice per outage, however many requests fail", async () => {
		Notice.shown.length = 0;
		const health = new Health();
		const fake = fakeDaemon({ "GET /api/state": () => json(STATE) });
		const client = makeClient(fake.fetch);
		const watched = new (client.constructor as typeof import("../src/api/client").DaemonClient)({
			baseUrl: () => "http://127.0.0.1:8765",
			token: () => "t",
			fetch: fake.fetch,
			onOutcome: (e, p) => health.outcome(e, p),
		});
		fake.setDown(true);
		for (let i = 0; i < 5; i++) await watched.state().catch(() => {});
		expect(Notice.shown).toEqual(["Commonplace: The Commonplace daemon is not answering at http://127.0.0.1:8765. Start it with: commonplace run"]);
		expect(health.reachability).toBe("down");
		fake.setDown(false);
		await watched.state();
		expect(health.reachability).toBe("ok");
		fake.setDown(true);
		await watched.state().catch(() => {});
		expect(Notice.shown).toHaveLength(2); // a new outage gets its own notice
	});
});
