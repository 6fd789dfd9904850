// The daemon's JSON API over the app's own `fetch`: the only network code in the plugin.
//
// `fetch` (not Obsidian's requestUrl) because answers stream and a related-notes request must
// be abortable. Requests come from the origin app://obsidian.md; the daemon answers their CORS
// preflight and serves them only with the bearer token, which goes on every request.

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

export interface ClientOptions {
	baseUrl: () => string;
	token: () => string;
	fetch: typeof fetch;
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
		const response = await this.send("POST", path, { question }, signal);
		let answer: Answer | null = null;
		let failure: DaemonError | null = null;
		const onValue = (value: unknown): void => {
			const event = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
			if (event.type === "delta" && typeof event.text === "string") onDelta(event.text);
			else if (event.type === "answer") answer = parseAnswer(event);
			else if (event.type === "error") {
				const error = (event.error ?? {}) as Record<string, unknown>;
				failure = new DaemonError("api", String(error.message ?? "the answer failed"), String(error.code ?? ""));
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
		if (failure) throw failure;
		if (!answer) throw this.report(new DaemonError("bad_response", "the answer ended before it was complete"), path);
		return answer;
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

	private async send(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
		const headers: Record<string, string> = {};
		const token = this.options.token().trim();
		if (token) headers.Authorization = `Bearer ${token}`;
		if (body !== undefined) headers["Content-Type"] = "application/json";
		let response: Response;
		try {
			response = await this.options.fetch(this.baseUrl + path, {
				method,
				headers,
				body: body === undefined ? undefined : JSON.stringify(body),
				signal,
				cache: "no-store",
			});
		} catch (err) {
			if (isAbort(err)) throw err;
			throw this.report(this.down(), path);
		}
		if (!response.ok) throw this.report(await this.failure(response), path);
		this.options.onOutcome?.(null, path);
		return response;
	}

	private down(): DaemonError {
		return new DaemonError("down", `The Commonplace daemon is not answering at ${this.baseUrl}. Start it with: commonplace run`);
	}

	private async failure(response: Response): Promise<DaemonError> {
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
			const what = this.options.token().trim() ? "The token was refused" : "No token is set";
			return new DaemonError("auth", `${what}: run 'commonplace token' on the computer that runs the daemon, and paste what it prints in Settings > Commonplace.`, code, 401);
		}
		return new DaemonError("api", message, code, response.status);
	}

	private report(error: DaemonError, path: string): DaemonError {
		this.options.onOutcome?.(error, path);
		return error;
	}
}
