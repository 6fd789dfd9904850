// No test talks to a real daemon (another one may well be listening on 127.0.0.1:8765): a
// request that no test answered fails here as "not reachable", the way a stopped daemon does.
import { beforeEach } from "vitest";
import { Notice, Setting, requestUrlCalls, setMobile, setRequestFetch } from "obsidian";

const offline = async (): Promise<Response> => {
	throw new TypeError("Failed to fetch (tests use no network)");
};

beforeEach(() => {
	globalThis.fetch = offline as typeof fetch;
	if (typeof window !== "undefined") window.fetch = offline as typeof fetch;
	Notice.shown.length = 0;
	requestUrlCalls.length = 0;
	setRequestFetch(null);
	setMobile(false);
	Setting.all.length = 0;
});
