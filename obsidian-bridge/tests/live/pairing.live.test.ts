// The plugin's real code pairing with a real daemon: started by tests/test_plugin_pairing_live.py
// (`commonplace run` on a free port), which sets COMMONPLACE_LIVE_DAEMON and runs this file; in a
// plain `npm test` it is skipped. Requests go over real HTTP through the stand-in's requestUrl
// (no Origin header, as Obsidian's requestUrl sends none); the owner's confirmation is made as
// `commonplace plugin pair` makes it (the vault's own token), and the revocation with the real
// `commonplace token revoke`.

import { execFileSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { App, type MemorySecretStorage, setRequestFetch } from "obsidian";
import { describe, expect, it } from "vitest";
import CommonplacePlugin from "../../src/main";
import { SECRET_ID } from "../../src/token-store";

const DAEMON = process.env.COMMONPLACE_LIVE_DAEMON ?? "";
const OWNER_TOKEN = process.env.COMMONPLACE_LIVE_OWNER_TOKEN ?? "";
const PYTHON = process.env.COMMONPLACE_LIVE_PYTHON ?? "python3";

/** A fetch over node:http (the test environment's own fetch is happy-dom's, with its rules). */
function nodeFetch(input: string, init: RequestInit = {}): Promise<Response> {
	return new Promise((resolve, reject) => {
		const url = new URL(input);
		const req = httpRequest(url, { method: init.method ?? "GET", headers: (init.headers ?? {}) as Record<string, string> }, (res) => {
			const chunks: Buffer[] = [];
			res.on("data", (c: Buffer) => chunks.push(c));
			res.on("end", () => resolve(new Response(Buffer.concat(chunks).toString("utf8"), { status: res.statusCode ?? 0 })));
		});
		req.on("error", reject);
		if (typeof init.body === "string") req.write(init.body);
		req.end();
	});
}

async function asOwner(path: string, body?: unknown): Promise<Record<string, unknown>> {
	const headers: Record<string, string> = { Authorization: `Bearer ${OWNER_TOKEN}` };
	if (body !== undefined) headers["Content-Type"] = "application/json";
	const response = await nodeFetch(DAEMON + path, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
	expect(response.status).toBe(200);
	return (await response.json()) as Record<string, unknown>;
}

const commonplace = (...args: string[]): string => execFileSync(PYTHON, ["-m", "commonplace", ...args], { encoding: "utf8", env: process.env });

describe.skipIf(!DAEMON)("pairing with a real daemon", () => {
	it("code shown, confirmed by the owner, token stored and used, refused once revoked", async () => {
		setRequestFetch(nodeFetch);
		const app = new App();
		const plugin = new CommonplacePlugin(app as never, { id: "commonplace", version: "0.1.0" } as never);
		(plugin as unknown as { data: unknown }).data = { daemonUrl: DAEMON };
		await plugin.onload();
		plugin.pairPollMs = 50;
		await plugin.status.refresh();
		expect(plugin.status.describe().text).toBe("Commonplace: token needed"); // not paired yet

		const done = plugin.pair();
		let code = "";
		for (let i = 0; i < 600 && !code; i++) {
			code = document.querySelector(".commonplace-pair-code")?.textContent ?? "";
			if (!code) await new Promise((r) => setTimeout(r, 50));
		}
		expect(code).toMatch(/^\d{3} \d{3}$/);
		const pending = (await asOwner("/api/pair/pending")).requests as { code: string; device: string }[];
		expect(pending).toEqual([expect.objectContaining({ code, device: "Obsidian on Linux (vault)" })]);
		await asOwner("/api/pair/confirm", { code });
		expect(await done).toBe("paired");

		const token = (app.secretStorage as MemorySecretStorage).getSecret(SECRET_ID) ?? "";
		expect(token.length).toBeGreaterThan(30);
		expect(token).not.toBe(OWNER_TOKEN); // a token of its own
		await plugin.status.refresh();
		expect(plugin.status.describe().lines[0]?.text).toMatch(/^running at .* \(version \d/);

		const id = commonplace("token", "list").trim().split(/\s+/)[0] ?? "";
		commonplace("token", "revoke", id);
		await plugin.status.refresh();
		expect(plugin.status.describe().text).toBe("Commonplace: token needed");
		plugin.unload();
	});
});
