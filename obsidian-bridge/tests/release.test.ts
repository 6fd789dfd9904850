// The release files: versions in step (version-bump.mjs --check), a manifest the community
// directory accepts (its submission checks), and the layout the directory and BRAT read.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, no types
import { manifestProblems } from "../scripts/release-layout.mjs";

const here = resolve(process.cwd());
const read = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(here, name), "utf8")) as Record<string, unknown>;
const problems = manifestProblems as (m: Record<string, unknown>) => string[];

describe("the release files", () => {
	it("keep package.json, manifest.json and versions.json in step", () => {
		const manifest = read("manifest.json");
		expect(manifest.version).toBe(read("package.json").version);
		expect(read("versions.json")[manifest.version as string]).toBe(manifest.minAppVersion);
		expect(execFileSync("node", ["scripts/version-bump.mjs", "--check"], { encoding: "utf8" })).toContain("versions in step");
	});

	it("have a manifest the community directory accepts, for mobile too", () => {
		const manifest = read("manifest.json");
		expect(problems(manifest)).toEqual([]);
		expect(manifest.isDesktopOnly).toBe(false);
		expect(problems({ ...manifest, description: "An Obsidian plugin", extra: 1, version: "v1.0" })).toEqual([
			'manifest.json has "extra", which the directory does not accept',
			"the description may not name Obsidian",
			"the description must end with . ? ! or )",
			'the version "v1.0" may hold only numbers and dots',
		]);
	});

	it("are laid out as the directory and BRAT read them", () => {
		const out = mkdtempSync(join(tmpdir(), "cp-release-"));
		execFileSync("node", ["scripts/release-layout.mjs", out], { encoding: "utf8" });
		const version = read("manifest.json").version as string;
		for (const name of ["manifest.json", "versions.json", "LICENSE", "README.md"]) expect(existsSync(join(out, "repository", name))).toBe(true);
		for (const name of ["main.js", "manifest.json", "styles.css"]) expect(existsSync(join(out, version, name))).toBe(true);
		const readme = readFileSync(join(out, "repository", "README.md"), "utf8");
		expect(readme).toContain("## Network use");
		expect(readme).toContain("only to the Commonplace daemon");
		expect(readFileSync(join(out, "repository", "LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
	});
});
