// requestUrl for plain requests (desktop and mobile alike, no CORS), fetch only for Ask's
// stream, and Ask without streaming when fetch is refused (an origin the daemon does not
// answer, a web view without streams). requestUrl cannot be cancelled: an aborted request is
// given up on at once and its late answer ignored.

import { describe, expect, it } from "vitest";
import { DaemonClient, type HttpParams, isAbort } from "../src/api/client";
import { ANSWER, STATE } from "./helpers";

function client(fetchFails: boolean, answer: (p: HttpParams) => Promise<{ status: number; text: string }>) {
	const sent: HttpParams[] = [];
	const fetched: string[] = [];
	const c = new DaemonClient({
		baseUrl: () => "https://laptop.tail1234.ts.net",
		token: () => "tok",
		fetch: (async (input: RequestInfo | URL) => {
			fetched.push(String(input));
			if (fetchFails) throw new TypeError("Load failed");
			return new Response(`${JSON.stringify(ANSWER)}\n`);
		}) as typeof fetch,
		request: (p) => {
			sent.push(p);
			return answer(p);
		},
	});
	return { c, sent, fetched };
}

describe("the transport", () => {
	it("sends plain requests through requestUrl with the token, never fetch", async () => {
		const { c, sent, fetched } = client(false, async () => ({ status: 200, text: JSON.stringify(STATE) }));
		const state = await c.state();
		expect(state.daemon.version).toBe("0.3.0");
		expect(fetched).toEqual([]);
		expect(sent[0]).toMatchObject({ url: "https://laptop.tail1234.ts.net/api/state", method: "GET", throw: false, headers: { Authorization: "Bearer tok" } });
	});

	it("streams Ask through fetch, and asks without streaming when fetch is refused", async () => {
		const streamed = client(false, async () => ({ status: 500, text: "" }));
		expect((await streamed.c.ask("q", () => {})).answer).toBe(ANSWER.answer);
		expect(streamed.fetched).toEqual(["https://laptop.tail1234.ts.net/api/ask?stream=1"]);
		expect(streamed.sent).toEqual([]);

		const { c, sent } = client(true, async () => ({ status: 200, text: JSON.stringify({ ...ANSWER, type: undefined }) }));
		let preview = "";
		const answer = await c.ask("When?", (t) => (preview += t));
		expect(answer.sources.map((s) => s.n)).toEqual([1, 2]);
		expect(preview).toBe(ANSWER.answer);
		expect(sent[0]).toMatchObject({ url: "https://laptop.tail1234.ts.net/api/ask", method: "POST", body: JSON.stringify({ question: "When?" }) });
	});

	it("an aborted request is given up on at once", async () => {
		let release!: () => void;
		const { c } = client(false, () => new Promise((resolve) => (release = () => resolve({ status: 200, text: JSON.stringify({ results: [] }) }))));
		const controller = new AbortController();
		const pending = c.related("A.md", {}, controller.signal);
		controller.abort();
		const err = await pending.catch((e: unknown) => e);
		expect(isAbort(err)).toBe(true);
		release();
	});

	it("a 401 through requestUrl says to pair", async () => {
		const { c } = client(false, async () => ({ status: 401, text: JSON.stringify({ error: { code: "bad_token", message: "x" } }) }));
		const err = (await c.state().catch((e: unknown) => e)) as { kind: string; message: string };
		expect(err.kind).toBe("auth");
		expect(err.message).toContain("Settings > Commonplace > Pair");
	});
});
