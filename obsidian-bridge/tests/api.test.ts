import { describe, expect, it } from "vitest";
import { DaemonError } from "../src/api/client";
import { readNdjson } from "../src/api/ndjson";
import { ANSWER, STATE, apiError, controlledStream, fakeDaemon, json, makeClient } from "./helpers";

const SEARCH = {
	results: [
		{ path: "A.md", title: "A", heading: "One", text: "first chunk of A", score: 0.9 },
		{ path: "A.md", title: "A", heading: "Two", text: "second chunk of A", score: 0.8 },
		{ path: "B.md", title: "B", heading: "", text: "chunk of B", score: 0.7 },
	],
	mode: "hybrid",
	notice: null,
};

function daemon() {
	return fakeDaemon({
		"GET /api/state": () => json(STATE),
		"GET /api/search": () => json(SEARCH),
		"GET /api/related": () => json(SEARCH),
		"POST /api/ask": () => json(ANSWER),
	});
}

describe("the daemon client", () => {
	it("sends the token on every request", async () => {
		const fake = daemon();
		const client = makeClient(fake.fetch, "s3cret");
		await client.state();
		await client.search("timber", "keyword", 5);
		await client.related("Projects/Shed Rebuild.md", { exclude: ["Inbox"] });
		const stream = controlledStream();
		const asking = makeClient(fakeDaemon({ "POST /api/ask": () => stream.response }).fetch, "s3cret");
		const pending = asking.ask("q", () => {});
		stream.push(`${JSON.stringify(ANSWER)}\n`);
		stream.end();
		await pending;
		for (const request of fake.requests) expect(request.headers.get("Authorization")).toBe("Bearer s3cret");
		expect(fake.requests.map((r) => r.url.pathname)).toEqual(["/api/state", "/api/search", "/api/related"]);
	});

	it("sends no Authorization header when no token is set, and says what to do on 401", async () => {
		const fake = fakeDaemon({ "GET /api/state": () => apiError(401, "bad_token", "Obsidian sent no token") });
		const outcomes: (DaemonError | null)[] = [];
		const error = await makeClient(fake.fetch, "", outcomes).state().catch((e) => e);
		expect(fake.requests[0]?.headers.has("Authorization")).toBe(false);
		expect(error).toBeInstanceOf(DaemonError);
		expect(error.kind).toBe("auth");
		expect(error.message).toContain("not paired yet");
		expect(error.message).toContain("commonplace plugin pair");
		expect(outcomes).toEqual([error]);
	});

	it("builds the search and related queries and keeps one entry per note", async () => {
		const fake = daemon();
		const client = makeClient(fake.fetch);
		const result = await client.search("shed timber", "vector", 7);
		expect(Object.fromEntries(fake.requests[0]!.url.searchParams)).toEqual({ q: "shed timber", mode: "vector", limit: "7" });
		expect(result.hits.map((h) => [h.path, h.heading, h.snippet])).toEqual([
			["A.md", "One", "first chunk of A"],
			["B.md", "", "chunk of B"],
		]);
		await client.related("Projects/Shed.md", { exclude: ["Inbox", "Daily notes"], limit: 5 });
		const params = fake.requests[1]!.url.searchParams;
		expect(params.get("path")).toBe("Projects/Shed.md");
		expect(params.getAll("exclude")).toEqual(["Inbox", "Daily notes"]);
	});

	it("reads snippets from grouped results too", async () => {
		const grouped = { results: [{ path: "A.md", title: "A", heading: "H", snippet: "the best part", score: 1 }], mode: "hybrid", notice: "keyword only" };
		const client = makeClient(fakeDaemon({ "GET /api/search": () => json(grouped) }).fetch);
		const result = await client.search("x", "hybrid", 5);
		expect(result.hits[0]?.snippet).toBe("the best part");
		expect(result.notice).toBe("keyword only");
	});

	it("says the daemon is down, with the command to run, when nothing answers", async () => {
		const fake = daemon();
		fake.setDown(true);
		const error = await makeClient(fake.fetch).state().catch((e) => e);
		expect(error.kind).toBe("down");
		expect(error.message).toContain("http://127.0.0.1:8765");
		expect(error.message).toContain("commonplace run");
	});

	it("passes the daemon's own error sentence on", async () => {
		const fake = fakeDaemon({ "GET /api/search": () => apiError(503, "index_unavailable", "the index is not open yet; try again shortly") });
		const error = await makeClient(fake.fetch).search("x", "hybrid", 5).catch((e) => e);
		expect([error.kind, error.code, error.status, error.message]).toEqual(["api", "index_unavailable", 503, "the index is not open yet; try again shortly"]);
	});

	it("streams the preview, then returns the checked answer", async () => {
		const stream = controlledStream();
		const fake = fakeDaemon({ "POST /api/ask": () => stream.response });
		const deltas: string[] = [];
		const pending = makeClient(fake.fetch).ask("When is the timber coming?", (t) => deltas.push(t));
		stream.push('{"type": "delta", "text": "The tim');
		stream.push('ber"}\n{"type": "delta", "text": " is"}\n');
		stream.push(`${JSON.stringify(ANSWER)}\n`);
		stream.end();
		const answer = await pending;
		expect(deltas).toEqual(["The timber", " is"]);
		expect(answer.sources.map((s) => s.n)).toEqual([1, 2]);
		expect(answer.findings).toHaveLength(1);
		expect(fake.requests[0]?.url.search).toBe("?stream=1");
		expect(fake.requests[0]?.body).toEqual({ question: "When is the timber coming?" });
		expect(fake.requests[0]?.headers.get("Content-Type")).toBe("application/json");
	});

	it("turns an error line in the stream into an error", async () => {
		const stream = controlledStream();
		const pending = makeClient(fakeDaemon({ "POST /api/ask": () => stream.response }).fetch).ask("q", () => {});
		stream.push('{"type": "delta", "text": "x"}\n{"type": "error", "error": {"code": "model_timeout", "message": "the model took too long"}}\n');
		stream.end();
		const error = await pending.catch((e) => e);
		expect([error.kind, error.code, error.message]).toEqual(["api", "model_timeout", "the model took too long"]);
	});

	it("says so when the stream ends before the answer", async () => {
		const stream = controlledStream();
		const pending = makeClient(fakeDaemon({ "POST /api/ask": () => stream.response }).fetch).ask("q", () => {});
		stream.push('{"type": "delta", "text": "x"}\n');
		stream.end();
		const error = await pending.catch((e) => e);
		expect(error.kind).toBe("bad_response");
	});
});

describe("NDJSON", () => {
	it("joins lines cut anywhere, even inside a character", async () => {
		const bytes = new TextEncoder().encode('{"text": "café ☕"}\n{"n": 2}\n{"n": 3}');
		const body = new ReadableStream<Uint8Array>({
			start(control) {
				for (let i = 0; i < bytes.length; i += 3) control.enqueue(bytes.slice(i, i + 3));
				control.close();
			},
		});
		const values: unknown[] = [];
		await readNdjson(body, (v) => values.push(v));
		expect(values).toEqual([{ text: "café ☕" }, { n: 2 }, { n: 3 }]);
	});
});
