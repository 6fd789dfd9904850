// Finding the daemon on this computer (desktop only): `commonplace run` writes a small file with
// its address in the user's state folder, outside every vault (platformdirs' user_state_path:
// $XDG_STATE_HOME/commonplace/daemons or ~/.local/state/... on Linux, ~/Library/Application
// Support/commonplace/daemons on macOS, %LOCALAPPDATA%\commonplace\daemons on Windows). It holds
// an address, never a token. Mobile Obsidian has no files outside the vault and no Node: there
// nothing is read, and the address is the one the user types (the ts.net name).

/* global require -- Electron's, on desktop only (below, behind Platform.isDesktop) */
import { Platform } from "obsidian";

export interface Found {
	url: string;
	vault: string;
	version: string;
}

interface NodeBits {
	fs: typeof import("fs");
	path: typeof import("path");
	os: typeof import("os");
	env: Record<string, string | undefined>;
	platform: string;
}

/** Node's modules, only on the desktop app (Electron): never loaded on mobile. */
function nodeBits(): NodeBits | null {
	if (Platform.isDesktop && Platform.isDesktopApp) {
		try {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- guarded: desktop only
			const fs = require("fs") as typeof import("fs");
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- guarded: desktop only
			const path = require("path") as typeof import("path");
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- guarded: desktop only
			const os = require("os") as typeof import("os");
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- guarded: desktop only
			const proc = require("process") as typeof import("process");
			return { fs, path, os, env: proc.env, platform: proc.platform };
		} catch {
			return null;
		}
	}
	return null;
}

export function stateFolder(node: Pick<NodeBits, "path" | "os" | "env" | "platform">): string {
	const home = node.os.homedir();
	if (node.platform === "darwin") return node.path.join(home, "Library", "Application Support", "commonplace", "daemons");
	if (node.platform === "win32") return node.path.join(node.env.LOCALAPPDATA ?? node.path.join(home, "AppData", "Local"), "commonplace", "daemons");
	const base = node.env.XDG_STATE_HOME?.trim() ? node.env.XDG_STATE_HOME : node.path.join(home, ".local", "state");
	return node.path.join(base, "commonplace", "daemons");
}

/** The daemon serving this vault (by its folder), else the only one running; null if none. */
export function findDaemon(vaultPath: string | null): Found | null {
	const node = nodeBits();
	if (!node) return null;
	const folder = stateFolder(node);
	let names: string[];
	try {
		names = node.fs.readdirSync(folder).filter((n) => n.endsWith(".json"));
	} catch {
		return null;
	}
	const real = (p: string): string => {
		try {
			return node.fs.realpathSync(p);
		} catch {
			return p;
		}
	};
	const found: Found[] = [];
	for (const name of names) {
		try {
			const data = JSON.parse(node.fs.readFileSync(node.path.join(folder, name), "utf8")) as Record<string, unknown>;
			if (typeof data.url === "string" && /^https?:\/\//.test(data.url)) {
				found.push({ url: data.url, vault: typeof data.vault === "string" ? data.vault : "", version: typeof data.version === "string" ? data.version : "" });
			}
		} catch {
			// a file being replaced or not ours: skip it
		}
	}
	if (vaultPath) {
		const mine = real(vaultPath);
		const match = found.find((f) => f.vault && real(f.vault) === mine);
		if (match) return match;
	}
	return found.length === 1 ? (found[0] ?? null) : null;
}
