// A fake daemon at the HTTP boundary: the plugin's real client sends real Requests through an
// injected fetch, and the tests answer with real Responses and streams.

import { DaemonClient, type DaemonError } from "../src/api/client";

export interface Recorded {
	url: URL;
	method: string;
	headers: Headers;
	body: unknown;
	signal: AbortSignal | null;
}

export type Route = (request: Recorded) => Response | Promise<Response>;

export function json(value: unknown, status = 200): Response {
	return new Response(JSON.stringify(value), { status, headers: { "Content-Type": "application/json" } });
}

export function apiError(status: number, code: string, message: string): Response {
	return json({ error: { code, message } }, status);
}

/** A body the test writes to piece by piece, as a daemon streaming NDJSON would. */
export function controlledStream(): { response: Response; push(text: string): void; end(): void } {
	const encoder = new TextEncoder();
	let control!: ReadableStreamDefaultController<Uint8Array>;
	const body = new ReadableStream<Uint8Array>({ start: (c) => (control = c) });
	return {
		response: new Response(body, { headers: { "Content-Type": "application/x-ndjson" } }),
		push: (text) => control.enqueue(encoder.encode(text)),
		end: () => control.close(),
	};
}

export function fakeDaemon(routes: Record<string, Route>) {
	const requests: Recorded[] = [];
	let down = false;
	const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
		const url = new URL(String(input));
		const recorded: Recorded = {
			url,
			method: init.method ?? "GET",
			headers: new Headers(init.headers),
			body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
			signal: init.signal ?? null,
		};
		requests.push(recorded);
		if (down) throw new TypeError("Failed to fetch");
		const route = routes[`${recorded.method} ${url.pathname}`];
		if (!route) return apiError(404, "not_found", "no such route");
		const answer = route(recorded);
		if (!recorded.signal) return answer;
		const signal = recorded.signal;
		return new Promise<Response>((resolve, reject) => {
			const abort = () => reject(new DOMException("The operation was aborted.", "AbortError"));
			if (signal.aborted) return abort();
			signal.addEventListener("abort", abort);
			Promise.resolve(answer).then(resolve, reject);
		});
	};
	return {
		fetch: fetch as typeof globalThis.fetch,
		requests,
		setDown(value: boolean) {
			down = value;
		},
	};
}

export function makeClient(fetch: typeof globalThis.fetch, token = "tok", outcomes: (DaemonError | null)[] = []): DaemonClient {
	return new DaemonClient({
		baseUrl: () => "http://127.0.0.1:8765/",
		token: () => token,
		fetch,
		onOutcome: (error) => outcomes.push(error),
	});
}

export const STATE = {
	daemon: { version: "0.3.0", vault: "Notes", flavor: "obsidian", uptime_s: 12, jobs: {}, notes: [] },
	ollama: { reachable: true, host: "http://127.0.0.1:11434", version: "0.12.6", error: "", models: { "qwen3.5:9b": true, "nomic-embed-text": true } },
	captures_waiting: 0,
	index: { notes: 24, chunks: 120, pending: 0, vectors_pending: 0, last_refresh: "2026-10-26T09:00:00+00:00", running: false },
	stages: { tidy: { waiting: [], busy: false, failing: [], filed: 3 } },
	attention: [],
	search: true,
	server_time: 0,
};

export const ANSWER = {
	type: "answer",
	question: "When is the shed timber coming?",
	answer: "The timber is ordered from Jewson [1] and arrives on Friday [2].\n\nBring gloves [7].",
	refused: false,
	sources: [
		{ n: 1, path: "Projects/Shed Rebuild.md", title: "Shed Rebuild", heading: "Plan > Materials", text: "Order timber from Jewson", note_date: "2026-10-01", start_line: 4 },
		{ n: 2, path: "Filed/2026-10-20 0805 Order shed timber.md", title: "Order shed timber", heading: "", text: "arrives Friday", note_date: "2026-10-20", start_line: 0 },
	],
	findings: ["[7] matches no passage: there were 8 passages, and none was numbered 7 in the answer's sources."],
	passages: 8,
};

export function flush(): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, 0));
}
