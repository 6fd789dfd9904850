// The daemon's state in words: a short status-bar text, and the lines `commonplace doctor`
// would print, each problem with what to run. A pure function, so every state is tested.

import type { DaemonError } from "../api/client";
import type { DaemonState } from "../api/types";

export type Level = "ok" | "warn" | "fail";

export interface Line {
	level: Level;
	label: string;
	text: string;
}

export interface Description {
	text: string;
	level: Level;
	lines: Line[];
}

export type Observation = { kind: "unknown" } | { kind: "state"; state: DaemonState } | { kind: "error"; error: DaemonError };

export function describe(observation: Observation, baseUrl: string, now: Date = new Date(), pluginVersion = ""): Description {
	if (observation.kind === "unknown") {
		return { text: "Commonplace …", level: "warn", lines: [{ level: "warn", label: "daemon", text: `not asked yet (${baseUrl})` }] };
	}
	if (observation.kind === "error") return describeError(observation.error, baseUrl);
	return describeState(observation.state, baseUrl, now, pluginVersion);
}

function describeError(error: DaemonError, baseUrl: string): Description {
	if (error.kind === "down") {
		return {
			text: "Commonplace: daemon off",
			level: "fail",
			lines: [{ level: "fail", label: "daemon", text: `not answering at ${baseUrl}; run: commonplace run (to keep it running: commonplace service install), or check the address in the plugin's settings` }],
		};
	}
	if (error.kind === "auth") {
		return { text: "Commonplace: token needed", level: "fail", lines: [{ level: "fail", label: "token", text: error.message }] };
	}
	return { text: "Commonplace: error", level: "fail", lines: [{ level: "fail", label: "daemon", text: error.message }] };
}

function describeState(state: DaemonState, baseUrl: string, now: Date, pluginVersion: string): Description {
	const lines: Line[] = [];
	const version = state.daemon.version ? ` (version ${state.daemon.version})` : "";
	lines.push({ level: "ok", label: "daemon", text: `running at ${baseUrl}${version}, vault ${state.daemon.vault}` });
	// The daemon ships the plugin it was built with: after an upgrade of one, the other is older.
	if (pluginVersion && state.daemon.version && pluginVersion !== state.daemon.version) {
		lines.push({
			level: "warn",
			label: "plugin",
			text: `this plugin is version ${pluginVersion}, the daemon ${state.daemon.version}: run commonplace plugin install --force on the computer (or copy main.js, manifest.json and styles.css from ${baseUrl}/obsidian-plugin/ into this plugin's folder), then reload Obsidian`,
		});
	}
	const { model } = state;
	const isOllama = model.backend === "ollama";
	if (model.reachable) {
		lines.push({ level: "ok", label: "model", text: `${model.line}${model.why ? ` (${model.why})` : ""}` });
	} else {
		// Ollama's users know this line; another server's sentence (the daemon's) names it and
		// says what to do.
		const text = isOllama
			? `Ollama not reachable at ${model.host}${model.error ? `: ${model.error}` : ""}; run: ollama serve`
			: model.error || `${model.server} is not answering; run: commonplace doctor`;
		lines.push({ level: "fail", label: "model", text });
	}
	const missing = Object.entries(model.models).filter(([, present]) => !present).map(([name]) => name);
	for (const [name, present] of Object.entries(model.models)) {
		const [there, gone] = isOllama ? ["is pulled", `is not pulled; run: ollama pull ${name}`] : ["is there", "is missing; run: commonplace doctor"];
		lines.push(present ? { level: "ok", label: "model", text: `${name} ${there}` } : { level: "fail", label: "model", text: `${name} ${gone}` });
	}
	const waiting = state.captures_waiting;
	lines.push({ level: "ok", label: "inbox", text: waiting ? `${waiting} capture(s) waiting to be tidied` : "nothing waiting" });
	const tidyFailing = state.stages.tidy?.failing;
	const failing = Array.isArray(tidyFailing) ? tidyFailing.length : 0;
	if (failing) lines.push({ level: "warn", label: "tidy", text: `${failing} capture(s) could not be tidied; run: commonplace doctor` });
	lines.push(indexLine(state, now));
	const attachments = attachmentsLine(state);
	if (attachments) lines.push(attachments);
	for (const note of state.daemon.notes) lines.push({ level: "warn", label: "note", text: note });
	const attention = state.attentionSummary ?? state.attention;
	for (const entry of attention) {
		const where = entry.path ? `${entry.path}: ` : "";
		const todo = entry.action ? `; ${entry.action}` : "";
		lines.push({ level: entry.level === "info" ? "ok" : "warn", label: entry.source, text: `${where}${entry.reason}${todo}` });
	}
	const toLookAt = attention.filter((e) => e.level === "warn").length + failing;

	let text = "Commonplace ✓";
	let level: Level = "ok";
	if (!model.reachable) [text, level] = ["Commonplace: model off", "fail"];
	else if (missing.length) [text, level] = ["Commonplace: model missing", "fail"];
	if (waiting) text += ` · ${waiting} waiting`;
	if (toLookAt) {
		text += ` · ${toLookAt} to look at`;
		if (level === "ok") level = "warn";
	}
	return { text, level, lines };
}

/** PDFs and images, from a daemon that reads them (`index.attachments`). */
function attachmentsLine(state: DaemonState): Line | null {
	const raw = (state.index as Record<string, unknown>).attachments;
	if (typeof raw !== "object" || raw === null) return null;
	const a = raw as Record<string, unknown>;
	const count = (key: string): number => (typeof a[key] === "number" ? a[key] : 0);
	const parts = [`${count("indexed")} PDF(s) and image(s) searchable`];
	if (typeof a.reading === "string" && a.reading) parts.push(`reading ${a.reading}`);
	if (count("waiting")) parts.push(`${count("waiting")} waiting to be read`);
	if (a.ocr === false) parts.push("no OCR: scans and images are not read (commonplace doctor says how to add it)");
	return { level: "ok", label: "attachments", text: parts.join("; ") };
}

function indexLine(state: DaemonState, now: Date): Line {
	const { index } = state;
	if (index.notes === undefined) return { level: "warn", label: "index", text: "not open yet" };
	const parts = [`${index.notes} notes, ${index.chunks ?? 0} chunks`];
	if (index.running) parts.push("indexing now");
	if (index.last_refresh) parts.push(`last indexed ${ago(new Date(index.last_refresh), now)}`);
	const pending = index.vectors_pending ?? 0;
	if (pending) parts.push(`${pending} note(s) wait for embeddings (keyword search finds them)`);
	return { level: pending ? "warn" : "ok", label: "index", text: parts.join("; ") };
}

export function ago(then: Date, now: Date): string {
	const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
	if (!Number.isFinite(seconds)) return "at an unknown time";
	if (seconds < 60) return "just now";
	if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
	if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
	return `${Math.floor(seconds / 86400)} day(s) ago`;
}
