// The daemon's real answers, recorded by tests/server/test_contract.py (Obsidian's origin and
// token, real index, fake Ollama), read by the plugin's real code. When the API changes, that
// test fails first and says how to record again; this file then shows whether the plugin still
// understands what the daemon says.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { App } from "obsidian";
import { describe, expect, it } from "vitest";
import { parseHits, parseState } from "../src/api/types";
import { renderAnswer } from "../src/ask/render";
import { noteOpener } from "../src/links";
import { relatedItems } from "../src/related/model";
import { describe as describeState } from "../src/status/describe";
import { controlledStream, fakeDaemon, json, makeClient } from "./helpers";

const read = (name: string): string => readFileSync(resolve(process.cwd(), "tests/contract", name), "utf8");
const recorded = (name: string): unknown => JSON.parse(read(name));

describe("the daemon's recorded answers", () => {
	it("state: the status item reads it", () => {
		const d = describeState({ kind: "state", state: parseState(recorded("state.json")) }, "http://127.0.0.1:8765", new Date("2026-10-26T09:10:00Z"));
		expect([d.text, d.level]).toEqual(["Commonplace ✓", "ok"]);
		expect(d.lines.find((l) => l.label === "index")?.text).toMatch(/^24 notes, \d+ chunks; last indexed 10 min ago$/);
		expect(d.lines.filter((l) => l.label === "model").map((l) => l.level)).toEqual(["ok", "ok", "ok"]); // the server, then each model
	});

	it("search: one hit per note, with heading and passage", () => {
		const result = parseHits(recorded("search.json"));
		expect(result.hits.length).toBeGreaterThan(0);
		for (const hit of result.hits) {
			expect(hit.path).toMatch(/\.md$/);
			expect(hit.title).not.toBe("");
			expect(hit.snippet).not.toBe("");
		}
		expect(new Set(result.hits.map((h) => h.path)).size).toBe(result.hits.length);
	});

	it("related: the view lists other notes, never the note itself", async () => {
		const body = recorded("related.json") as { path: string };
		const client = makeClient(fakeDaemon({ "GET /api/related": () => json(body) }).fetch);
		const result = await client.related(body.path);
		const items = relatedItems(result.hits, { current: body.path, linked: new Set(), hideLinked: false, exclude: [] });
		expect(items.length).toBe(result.hits.length);
		expect(items.map((i) => i.path)).not.toContain(body.path);
		expect(items.every((i) => i.heading !== "" && i.snippet !== "")).toBe(true);
	});

	it("ask: the stream's preview adds up to the answer, which renders with its sources and findings", async () => {
		const stream = controlledStream();
		const client = makeClient(fakeDaemon({ "POST /api/ask": () => stream.response }).fetch);
		let preview = "";
		const asking = client.ask("q", (t) => (preview += t));
		const text = read("ask-stream.ndjson");
		for (let i = 0; i < text.length; i += 97) stream.push(text.slice(i, i + 97));
		stream.end();
		const answer = await asking;
		expect(preview).toBe(answer.answer);
		expect(answer.sources.map((s) => s.n)).toEqual([1, 2]);
		expect(answer.findings.length).toBeGreaterThan(0);
		const root = document.createElement("div");
		const app = new App();
		renderAnswer(root, answer, noteOpener(app));
		expect([...root.querySelectorAll(".commonplace-cite")].map((n) => n.textContent)).toEqual(["[1]", "[2]"]);
		expect(root.querySelector(".commonplace-cite-unknown")?.textContent).toBe("[9]");
		expect(root.querySelectorAll(".commonplace-findings li").length).toBe(answer.findings.length);
		(root.querySelector(".commonplace-source-link") as HTMLElement).click();
		const first = answer.sources[0]!;
		expect(app.workspace.opened[0]?.link).toBe(`${first.path.replace(/\.md$/, "")}#${first.heading.split(" > ").pop()}`);
	});

	it("a missing token: the plugin says what to run", async () => {
		const client = makeClient(fakeDaemon({ "GET /api/state": () => json(recorded("no-token.json"), 401) }).fetch, "");
		const error = await client.state().catch((e) => e);
		expect(error.kind).toBe("auth");
		expect(error.message).toContain("commonplace plugin pair");
	});
});
