// Pairing this device with the daemon, without copying a token: the plugin asks, the daemon and
// this modal show the same short code, the owner confirms it on the daemon's side (`commonplace
// plugin pair` on the computer, or the phone page), and the daemon hands this device a token of
// its own, which goes into Obsidian's secret storage. The plugin never confirms anything itself.
//
// While the modal is open it asks the daemon every two seconds whether the owner confirmed
// (the only repeated request the plugin makes, and only for the few minutes a pairing waits).

import { type App, Modal, Platform } from "obsidian";
import { type DaemonClient, DaemonError } from "./api/client";
import { clear, el } from "./dom";

export const POLL_MS = 2000;

export type PairOutcome = "paired" | "denied" | "expired" | "closed";

export interface PairStart {
	id: string;
	code: string;
	expiresIn: number;
}

export type PollAnswer = { status: "waiting" | "denied" | "expired" } | { status: "confirmed"; token: string; deviceId: string };

export async function askToPair(client: DaemonClient, device: string): Promise<PairStart> {
	const body = (await client.json("POST", "/api/pair/request", { device })) as Record<string, unknown>;
	if (typeof body.id !== "string" || typeof body.code !== "string") throw new DaemonError("bad_response", "the daemon's pairing answer has no code");
	return { id: body.id, code: body.code, expiresIn: typeof body.expires_in === "number" ? body.expires_in : 300 };
}

export async function pollPairing(client: DaemonClient, id: string): Promise<PollAnswer> {
	const body = (await client.json("POST", "/api/pair/poll", { id })) as Record<string, unknown>;
	if (body.status === "confirmed" && typeof body.token === "string") {
		return { status: "confirmed", token: body.token, deviceId: typeof body.device_id === "string" ? body.device_id : "" };
	}
	if (body.status === "waiting" || body.status === "denied") return { status: body.status };
	return { status: "expired" };
}

/** What the owner will read on the daemon's side: which app, which system, which vault. */
export function deviceName(vaultName: string): string {
	const system = Platform.isIosApp
		? "iPhone or iPad"
		: Platform.isAndroidApp
			? "Android"
			: Platform.isMacOS
				? "macOS"
				: Platform.isWin
					? "Windows"
					: Platform.isLinux
						? "Linux"
						: "this device";
	return `Obsidian on ${system} (${vaultName})`;
}

export interface PairHost {
	client: DaemonClient;
	vaultName: string;
	storeToken(token: string): Promise<void>;
	/** The plugin's registerInterval, so an interval never outlives the plugin. */
	registerInterval(id: number): number;
	onPaired(): void;
	pollMs?: number;
}

export class PairModal extends Modal {
	outcome: PairOutcome = "closed";
	private timer: number | null = null;
	private expires = 0;
	private readonly status: HTMLElement;
	private readonly codeEl: HTMLElement;
	private readonly help: HTMLElement;
	readonly done: Promise<PairOutcome>;
	private finish!: (outcome: PairOutcome) => void;

	constructor(app: App, private readonly host: PairHost, private readonly now: () => number = () => Date.now()) {
		super(app);
		this.done = new Promise((resolve) => (this.finish = resolve));
		const root = this.contentEl;
		root.classList.add("commonplace-pair");
		el(root, "div", { cls: "commonplace-pair-title", text: "Pair with the Commonplace daemon" });
		this.status = el(root, "p", { cls: "commonplace-pair-status", text: `Asking the daemon at ${host.client.baseUrl}…` });
		this.codeEl = el(root, "div", { cls: "commonplace-pair-code" });
		this.help = el(root, "div", { cls: "commonplace-pair-help" });
	}

	onOpen(): void {
		void this.start();
	}

	onClose(): void {
		this.stop();
		this.finish(this.outcome);
	}

	private stop(): void {
		if (this.timer !== null) window.clearInterval(this.timer);
		this.timer = null;
	}

	private async start(): Promise<void> {
		let started: PairStart;
		try {
			started = await askToPair(this.host.client, deviceName(this.host.vaultName));
		} catch (err) {
			this.status.textContent = err instanceof Error ? err.message : String(err);
			return;
		}
		this.expires = this.now() + started.expiresIn * 1000;
		this.status.textContent = "The daemon shows this code. Confirm it there if it is the same:";
		this.codeEl.textContent = started.code;
		clear(this.help);
		const where = Platform.isMobile ? "on the computer that runs the daemon" : "on this computer";
		el(this.help, "p", { text: `Run this in a terminal ${where}, and answer yes if it shows this code:` });
		el(this.help, "code", { text: "commonplace plugin pair" });
		el(this.help, "p", { text: "Or confirm it on the daemon's phone page. This window closes when the daemon says yes." });
		this.timer = this.host.registerInterval(window.setInterval(() => void this.poll(started.id), this.host.pollMs ?? POLL_MS));
	}

	private polling = false;

	async poll(id: string): Promise<void> {
		if (this.polling || this.timer === null) return;
		if (this.now() > this.expires) return this.end("expired", "The code expired before it was confirmed. Press pair again for a new one.");
		this.polling = true;
		try {
			const answer = await pollPairing(this.host.client, id);
			if (answer.status === "confirmed") {
				await this.host.storeToken(answer.token);
				this.end("paired", "Paired. This device has a token of its own now.");
				this.host.onPaired();
				this.close();
			} else if (answer.status === "denied") {
				this.end("denied", "The pairing was denied on the daemon's side.");
			} else if (answer.status === "expired") {
				this.end("expired", "The code expired before it was confirmed. Press pair again for a new one.");
			}
		} catch {
			// the daemon did not answer this once: the next poll asks again until the code expires
		} finally {
			this.polling = false;
		}
	}

	private end(outcome: PairOutcome, message: string): void {
		this.outcome = outcome;
		this.stop();
		this.status.textContent = message;
		clear(this.codeEl);
		clear(this.help);
	}
}
