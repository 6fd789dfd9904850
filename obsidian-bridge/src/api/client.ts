// The daemon's JSON API: the only network code in the plugin, and it talks to the daemon only.
//
// Plain requests go through Obsidian's `requestUrl` (`request` here), which works the same on
// desktop and on mobile and needs no CORS. Ask streams its answer, which `requestUrl` cannot:
// it uses `fetch`, from the app's origin (app://obsidian.md on desktop, capacitor://localhost
// or http://localhost on mobile), whose CORS preflight the daemon answers; where that fails it
// asks again without streaming. A token goes on every request; the daemon serves none without.

import { type Answer, BadResponse, type DaemonState, type SearchMode, type SearchResult, parseAnswer, parseHits, parseState } from "./types";
import { readNdjson } from "./ndjson";

export type FailureKind = "down" | "auth" | "api" | "bad_response";

export class DaemonError extends Error {
	constructor(
		readonly kind: FailureKind,
		message: string,
		readonly code = "",
		readonly status = 0,
	) {
		super(message);
		this.name = "DaemonError";
	}
}

export function isAbort(err: unknown): boolean {
	return err instanceof Error && err.name === "AbortError";
}

/** What Obsidian's `requestUrl` takes and gives (with `throw: false`), as far as used here. */
export interface HttpParams {
	url: string;
	method: string;
	headers: Record<string, string>;
	body?: string;
	throw: false;
}

export interface HttpResponse {
	status: number;
	text: string;
}

export type HttpRequest = (params: HttpParams) => Promise<HttpResponse>;

/** The little of a response the client reads: a fetch Response, or requestUrl's answer. */
interface Reply {
	ok: boolean;
	status: number;
	json(): Promise<unknown>;
	text(): Promise<string>;
	body: ReadableStream<Uint8Array> | null;
}

function abortError(): Error {
	return new DOMException("The operation was aborted.", "AbortError");
}

/** requestUrl cannot be cancelled: an aborted request is given up on (its answer ignored). */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
	if (!signal) return promise;
	if (signal.aborted) return Promise.reject(abortError());
	return new Promise<T>((resolve, reject) => {
		const onAbort = (): void => reject(abortError());
		signal.addEventListener("abort", onAbort, { once: true });
		promise.then(
			(value) => {
				signal.removeEventListener("abort", onAbort);
				if (signal.aborted) reject(abortError());
				else resolve(value);
			},
			(err: unknown) => {
				signal.removeEventListener("abort", onAbort);
				reject(err instanceof Error ? err : new Error(String(err)));
			},
		);
	});
}

function replyOf(response: HttpResponse): Reply {
	return {
		ok: response.status >= 200 && response.status < 300,
		status: response.status,
		json: () => Promise.resolve(JSON.parse(response.text) as unknown),
		text: () => Promise.resolve(response.text),
		body: null,
	};
}

export interface ClientOptions {
	baseUrl: () => string;
	token: () => string;
	fetch: typeof fetch;
	/** Obsidian's requestUrl, for every request that does not stream; without it, `fetch`. */
	request?: HttpRequest;
	/** What to add when the daemon does not answer (on a phone: set the ts.net name). */
	downHint?: () => string;
	/** Told after every request that was not aborted: reachable or not, token right or not. */
	onOutcome?: (outcome: DaemonError | null, path: string) => void;
}

export interface RelatedOptions {
	exclude?: string[];
	limit?: number;
}

export class DaemonClient {
	constructor(private readonly options: ClientOptions) {}

	get baseUrl(): string {
		return this.options.baseUrl().replace(/\/+$/, "");
	}

	async state(signal?: AbortSignal): Promise<DaemonState> {
		return parseState(await this.json("GET", "/api/state", undefined, signal));
	}

	async search(query: string, mode: SearchMode, limit: number, signal?: AbortSignal): Promise<SearchResult> {
		const params = new URLSearchParams({ q: query, mode, limit: String(limit) });
		return parseHits(await this.json("GET", `/api/search?${params}`, undefined, signal));
	}

	async related(path: string, options: RelatedOptions = {}, signal?: AbortSignal): Promise<SearchResult> {
		const params = new URLSearchParams({ path, limit: String(options.limit ?? 10) });
		for (const folder of options.exclude ?? []) params.append("exclude", folder);
		return parseHits(await this.json("GET", `/api/related?${params}`, undefined, signal));
	}

	/** Ask, streaming: `onDelta` gets the preview as the model writes; the promise ends with the
	 * checked answer, which replaces the preview. */
	async ask(question: string, onDelta: (text: string) => void, signal?: AbortSignal): Promise<Answer> {
		const path = "/api/ask?stream=1";
		let response: Reply;
		try {
			response = await this.send("POST", path, { question }, signal, true);
		} catch (err) {
			// fetch refused (an origin the daemon does not answer, a web view without streams):
			// the same question without streaming, through requestUrl
			if (!(err instanceof DaemonError) || err.kind !== "down" || !this.options.request) throw err;
			const answer = parseAnswer(await this.json("POST", "/api/ask", { question }, signal));
			onDelta(answer.answer);
			return answer;
		}
		const got: { answer: Answer | null; failure: DaemonError | null } = { answer: null, failure: null };
		const onValue = (value: unknown): void => {
			const event = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
			if (event.type === "delta" && typeof event.text === "string") onDelta(event.text);
			else if (event.type === "answer") got.answer = parseAnswer(event);
			else if (event.type === "error") {
				const error = (event.error ?? {}) as Record<string, unknown>;
				const message = typeof error.message === "string" ? error.message : "the answer failed";
				got.failure = new DaemonError("api", message, typeof error.code === "string" ? error.code : "");
			}
		};
		try {
			if (response.body) await readNdjson(response.body, onValue);
			else for (const line of (await response.text()).split("\n")) if (line.trim()) onValue(JSON.parse(line));
		} catch (err) {
			if (isAbort(err)) throw err;
			if (err instanceof BadResponse || err instanceof SyntaxError) throw this.report(new DaemonError("bad_response", `the daemon's answer could not be read: ${err.message}`), path);
			throw this.report(this.down(), path);
		}
		if (got.failure) throw got.failure;
		if (!got.answer) throw this.report(new DaemonError("bad_response", "the answer ended before it was complete"), path);
		return got.answer;
	}

	async json(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
		const response = await this.send(method, path, body, signal);
		try {
			return await response.json();
		} catch (err) {
			if (isAbort(err)) throw err;
			throw this.report(new DaemonError("bad_response", "the daemon's answer is not JSON"), path);
		}
	}

	private async send(method: string, path: string, body: unknown, signal?: AbortSignal, stream = false): Promise<Reply> {
		// The plugin names itself: through requestUrl there is no Origin, and the daemon must
		// still ask for the token (and say so) rather than treat it as its own page.
		const headers: Record<string, string> = { "X-Commonplace-Client": "obsidian" };
		const token = this.options.token().trim();
		if (token) headers.Authorization = `Bearer ${token}`;
		if (body !== undefined) headers["Content-Type"] = "application/json";
		const text = body === undefined ? undefined : JSON.stringify(body);
		let response: Reply;
		try {
			const request = this.options.request;
			if (request && !stream) {
				response = replyOf(await abortable(request({ url: this.baseUrl + path, method, headers, body: text, throw: false }), signal));
			} else {
				response = await this.options.fetch(this.baseUrl + path, { method, headers, body: text, signal, cache: "no-store" });
			}
		} catch (err) {
			if (isAbort(err)) throw err;
			throw this.report(this.down(), path);
		}
		if (!response.ok) throw this.report(await this.failure(response), path);
		this.options.onOutcome?.(null, path);
		return response;
	}

	private down(): DaemonError {
		const hint = this.options.downHint?.() ?? "Start it with: commonplace run";
		return new DaemonError("down", `The Commonplace daemon is not answering at ${this.baseUrl}. ${hint}`);
	}

	private async failure(response: Reply): Promise<DaemonError> {
		let code = "";
		let message = `the daemon answered HTTP ${response.status}`; // unless it says more
		try {
			const error = ((await response.json()) as { error?: { code?: unknown; message?: unknown } }).error;
			if (typeof error?.code === "string") code = error.code;
			if (typeof error?.message === "string") message = error.message;
		} catch {
			// not our JSON error: keep the status line
		}
		if (response.status === 401) {
			const what = this.options.token().trim() ? "The daemon refused this device's token (revoked?)" : "This device is not paired yet";
			return new DaemonError("auth", `${what}: pair it in Settings > Commonplace > Pair, and confirm the code with 'commonplace plugin pair' on the computer (or on the phone page).`, code, 401);
		}
		return new DaemonError("api", message, code, response.status);
	}

	private report(error: DaemonError, path: string): DaemonError {
		this.options.onOutcome?.(error, path);
		return error;
	}
}
