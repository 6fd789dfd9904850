// Pairing from the plugin's side, through the real plugin in the stand-in: the code the daemon
// gives is shown; nothing is stored until the owner confirms on the daemon's side; the device's
// token then lands in the secret store (never in data.json) and goes on every request; a revoked
// token is refused and the plugin says to pair again. The daemon's side of the same exchange is
// tested against the real server in tests/server/test_pairing.py.

import { App, MemorySecretStorage, Notice, Setting, liveIntervals, requestUrlCalls, setMobile } from "obsidian";
import { describe, expect, it } from "vitest";
import CommonplacePlugin from "../src/main";
import { SECRET_ID } from "../src/token-store";
import { STATE, apiError, fakeDaemon, json } from "./helpers";

const MANIFEST = { id: "commonplace", version: "0.1.0" };
const standInIntervals = (): number => liveIntervals.size;

function pairingDaemon() {
	const valid = new Set<string>();
	const asked: unknown[] = [];
	let confirmed = false;
	const daemon = fakeDaemon({
		"POST /api/pair/request": (r) => {
			asked.push(r.body);
			return json({ id: "secret-request-id", code: "482 193", expires_in: 300 });
		},
		"POST /api/pair/poll": (r) => {
			expect(r.body).toEqual({ id: "secret-request-id" });
			if (!confirmed) return json({ status: "waiting" });
			valid.add("device-token-1");
			return json({ status: "confirmed", token: "device-token-1", device_id: "a1b2c3" });
		},
		"GET /api/state": (r) => (valid.has((r.headers.get("Authorization") ?? "").replace("Bearer ", "")) ? json(STATE) : apiError(401, "bad_token", "refused")),
	});
	return {
		...daemon,
		asked,
		valid,
		confirm() {
			confirmed = true;
		},
	};
}

async function until(check: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 600; i++) {
		if (check()) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error(`gave up waiting for ${what}`);
}

describe("pairing", () => {
	it("shows the daemon's code, stores the token only once the owner confirmed, and uses it", async () => {
		const daemon = pairingDaemon();
		globalThis.fetch = daemon.fetch;
		const app = new App();
		const plugin = new CommonplacePlugin(app as never, MANIFEST as never);
		await plugin.onload();
		plugin.pairPollMs = 10;
		const secrets = app.secretStorage as MemorySecretStorage;

		const done = plugin.pair();
		await until(() => document.querySelector(".commonplace-pair-code")?.textContent === "482 193", "the code");
		expect(daemon.asked).toEqual([{ device: "Obsidian on Linux (vault)" }]);
		expect(document.body.textContent).toContain("commonplace plugin pair");
		await until(() => daemon.requests.filter((r) => r.url.pathname === "/api/pair/poll").length >= 3, "polls");
		expect(secrets.getSecret(SECRET_ID)).toBeNull(); // nothing until the owner says yes

		daemon.confirm(); // the owner, in `commonplace plugin pair` or on the phone page
		expect(await done).toBe("paired");
		expect(secrets.getSecret(SECRET_ID)).toBe("device-token-1");
		expect(JSON.stringify(await plugin.loadData())).not.toContain("device-token-1");
		expect(document.querySelector(".commonplace-pair-code")).toBeNull(); // the modal closed
		// every request went through requestUrl (works on mobile, no CORS)
		expect(requestUrlCalls.map((c) => new URL(c.url).pathname)).toContain("/api/pair/poll");

		await plugin.status.refresh();
		expect(plugin.status.describe().text).toBe("Commonplace ✓");
		const last = daemon.requests.filter((r) => r.url.pathname === "/api/state").pop();
		expect(last?.headers.get("Authorization")).toBe("Bearer device-token-1");

		// revoked on the computer (commonplace token revoke): refused, and the plugin says to pair
		daemon.valid.clear();
		await plugin.status.refresh();
		const described = plugin.status.describe();
		expect(described.text).toBe("Commonplace: token needed");
		expect(described.lines[0]?.text).toContain("Settings > Commonplace > Pair");
		plugin.unload();
	});

	it("a pairing left waiting stops asking when the plugin is disabled", async () => {
		const daemon = pairingDaemon();
		globalThis.fetch = daemon.fetch;
		const plugin = new CommonplacePlugin(new App() as never, MANIFEST as never);
		await plugin.onload();
		plugin.pairPollMs = 10;
		const done = plugin.pair();
		await until(() => daemon.requests.some((r) => r.url.pathname === "/api/pair/poll"), "a poll");
		plugin.unload(); // disabling the plugin clears its intervals (registerInterval)
		await new Promise((r) => setTimeout(r, 30)); // a poll already sent may still land
		const polls = daemon.requests.length;
		await new Promise((r) => setTimeout(r, 100));
		expect(daemon.requests.length).toBe(polls);
		expect(standInIntervals()).toBe(0);
		void done;
	});

	it("the settings tab pairs in one click", async () => {
		const daemon = pairingDaemon();
		globalThis.fetch = daemon.fetch;
		const app = new App();
		const plugin = new CommonplacePlugin(app as never, MANIFEST as never);
		await plugin.onload();
		plugin.pairPollMs = 10;
		plugin.settingTabs[0]!.display();
		const setting = Setting.all.filter((s) => s.name === "Pair with the daemon").pop()!;
		expect(setting.descEl.textContent).toContain("Not paired yet");
		const click = (setting.controls[0] as unknown as { click(): Promise<void> }).click();
		await until(() => daemon.asked.length === 1, "the request");
		daemon.confirm();
		await click;
		expect(setting.descEl.textContent).toContain("Paired");
		expect((app.secretStorage as MemorySecretStorage).getSecret(SECRET_ID)).toBe("device-token-1");
		expect(Setting.all.some((s) => s.name === "Network use" && s.descEl.textContent?.includes("only to the Commonplace daemon"))).toBe(true);
		plugin.unload();
	});
});

describe("on a phone, before the address is set", () => {
	it("says to set the computer's Tailscale name, not to run the daemon on the phone", async () => {
		setMobile(true);
		const plugin = new CommonplacePlugin(new App() as never, MANIFEST as never);
		await plugin.onload();
		await plugin.status.refresh();
		expect(Notice.shown.join("\n")).toContain("Tailscale name");
		expect(Notice.shown.join("\n")).not.toContain("commonplace run");
		expect(plugin.statusItems).toHaveLength(0);
		plugin.unload();
	});
});
