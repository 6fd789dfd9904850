// What the daemon answers (README, "The JSON API"). Checked loosely on arrival: a field of the
// wrong type becomes a clear error instead of `undefined` somewhere in the view.

export type SearchMode = "hybrid" | "keyword" | "vector";
export const SEARCH_MODES: SearchMode[] = ["hybrid", "keyword", "vector"];

/** Where a passage is: a note (at a heading), or an attachment (a PDF at a page, an image).
 * `page` and `label` ("Manual.pdf, page 4") come from a daemon that reads attachments; an older
 * daemon sends neither, and the passage is a note's. */
export interface Place {
	path: string;
	heading: string;
	page: number | null;
	attachment: boolean;
	label: string;
}

export interface Source extends Place {
	n: number;
	title: string;
	text: string;
}

export interface Answer {
	question: string;
	answer: string;
	refused: boolean;
	sources: Source[];
	findings: string[];
}

/** One note found by search or as related, with the passage that matched best. */
export interface NoteHit extends Place {
	title: string;
	snippet: string;
	score: number;
}

export interface SearchResult {
	hits: NoteHit[];
	mode: string;
	notice: string | null;
}

/** Something the daemon skips or keeps failing on, with what to do (`attention` in the state). */
export interface AttentionEntry {
	source: string;
	path: string;
	reason: string;
	action: string;
	level: "info" | "warn";
}

export interface DaemonState {
	daemon: { version: string; vault: string; uptime_s: number; notes: string[] };
	ollama: {
		reachable: boolean;
		host: string;
		version: string;
		error: string;
		models: Record<string, boolean>;
	};
	/** The model server: Ollama, an OpenAI-compatible server or the built-in model. A daemon
	 * before 0.2 sent only `ollama`; this is filled from it then. */
	model: {
		backend: string;
		server: string;
		host: string;
		reachable: boolean;
		error: string;
		why: string;
		line: string;
		models: Record<string, boolean>;
	};
	captures_waiting: number;
	index: { notes?: number; chunks?: number; pending?: number; vectors_pending?: number; last_refresh?: string | null; running?: boolean };
	stages: Record<string, { status?: string; message?: string } & Record<string, unknown>>;
	attention: AttentionEntry[];
	/** The same entries with many files of one trouble as one (what the phone page shows);
	 * null from a daemon that does not send it. */
	attentionSummary: AttentionEntry[] | null;
	server_time: number;
}

export class BadResponse extends Error {}

function obj(value: unknown, what: string): Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new BadResponse(`the daemon's ${what} is not an object`);
	}
	return value as Record<string, unknown>;
}

function str(value: unknown, fallback = ""): string {
	return typeof value === "string" ? value : fallback;
}

function num(value: unknown, fallback = 0): number {
	return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** page, attachment and label, from what the daemon sent (title: the note's, as a fallback). */
function place(item: Record<string, unknown>, path: string, title: string): Omit<Place, "path" | "heading"> {
	const page = typeof item.page === "number" && Number.isInteger(item.page) && item.page > 0 ? item.page : null;
	const attachment = item.attachment === true || (item.attachment === undefined && !/\.md$/i.test(path) && path !== "");
	const name = path.split("/").pop() ?? path;
	const label = str(item.label) || (attachment ? (page ? `${name}, page ${page}` : name) : title);
	return { page, attachment, label };
}

function list(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}

export function parseAnswer(value: unknown): Answer {
	const body = obj(value, "answer");
	if (typeof body.answer !== "string") throw new BadResponse("the daemon's answer has no text");
	return {
		question: str(body.question),
		answer: body.answer,
		refused: body.refused === true,
		sources: list(body.sources).map((s) => {
			const src = obj(s, "source");
			const path = str(src.path);
			const title = str(src.title);
			return { n: num(src.n), path, title, heading: str(src.heading), text: str(src.text), ...place(src, path, title) };
		}),
		findings: list(body.findings).filter((f): f is string => typeof f === "string"),
	};
}

/** Search and related results, one per note (and per page of a PDF). The daemon may send one
 * entry per passage (several of a note): the best one of each is kept, in rank order. */
export function parseHits(value: unknown): SearchResult {
	const body = obj(value, "search results");
	const seen = new Set<string>();
	const hits: NoteHit[] = [];
	for (const item of list(body.results)) {
		const hit = obj(item, "search result");
		const path = str(hit.path);
		const title = str(hit.title, path.replace(/\.md$/, ""));
		const where = place(hit, path, title);
		const key = `${path}#${where.page ?? ""}`;
		if (!path || seen.has(key)) continue;
		seen.add(key);
		hits.push({
			path,
			title,
			heading: str(hit.heading),
			snippet: str(hit.snippet, str(hit.text)),
			score: num(hit.score),
			...where,
		});
	}
	return { hits, mode: str(body.mode), notice: typeof body.notice === "string" ? body.notice : null };
}

function attentionEntry(item: unknown): AttentionEntry {
	const entry = obj(item, "attention entry");
	return {
		source: str(entry.source),
		path: str(entry.path),
		reason: str(entry.reason),
		action: str(entry.action),
		level: entry.level === "info" ? "info" : "warn",
	};
}

export function parseState(value: unknown): DaemonState {
	const body = obj(value, "state");
	const daemon = obj(body.daemon, "state");
	const ollama = obj(body.ollama, "state");
	const models: Record<string, boolean> = {};
	for (const [name, present] of Object.entries(obj(ollama.models ?? {}, "model list"))) models[name] = present === true;
	const sent = typeof body.model === "object" && body.model !== null ? (body.model as Record<string, unknown>) : {};
	const modelList: Record<string, boolean> = {};
	for (const [name, present] of Object.entries(obj(sent.models ?? {}, "model list"))) modelList[name] = present === true;
	const model =
		"reachable" in sent
			? {
					backend: str(sent.backend),
					server: str(sent.server),
					host: str(sent.host),
					reachable: sent.reachable === true,
					error: str(sent.error),
					why: str(sent.why),
					line: str(sent.line),
					models: modelList,
				}
			: {
					backend: "ollama",
					server: "Ollama",
					host: str(ollama.host),
					reachable: ollama.reachable === true,
					error: str(ollama.error),
					why: "",
					line: `Ollama at ${str(ollama.host)}`,
					models,
				};
	return {
		daemon: {
			version: str(daemon.version),
			vault: str(daemon.vault),
			uptime_s: num(daemon.uptime_s),
			notes: list(daemon.notes).filter((n): n is string => typeof n === "string"),
		},
		ollama: {
			reachable: ollama.reachable === true,
			host: str(ollama.host),
			version: str(ollama.version),
			error: str(ollama.error),
			models,
		},
		model,
		captures_waiting: num(body.captures_waiting),
		index: (typeof body.index === "object" && body.index !== null ? body.index : {}),
		stages: (typeof body.stages === "object" && body.stages !== null ? body.stages : {}) as DaemonState["stages"],
		attention: list(body.attention).map(attentionEntry),
		attentionSummary: Array.isArray(body.attention_summary) ? body.attention_summary.map(attentionEntry) : null,
		server_time: num(body.server_time),
	};
}
