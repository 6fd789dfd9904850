// Assembles what Obsidian's community directory and BRAT read, ready to publish: a folder that
// is the plugin's own repository (manifest.json, versions.json, LICENSE and README.md at its
// root: the directory reads manifest.json and README.md there, BRAT reads manifest.json) and the
// release's assets (main.js, manifest.json, styles.css: what Obsidian downloads, from a release
// tagged exactly with the manifest's version, no "v"). It checks the manifest against the
// directory's submission checks first, and fails with what to fix.
//
//   node scripts/release-layout.mjs [OUT]     (default: release/)
//
// OUT/repository/  the files for the plugin's repository root
// OUT/<version>/   the release assets; publish them as release "<version>"
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";

const ALLOWED = ["id", "name", "description", "author", "version", "minAppVersion", "isDesktopOnly", "authorUrl", "fundingUrl", "helpUrl"];
const REQUIRED = ALLOWED.slice(0, 7);

export function manifestProblems(manifest) {
	const problems = [];
	for (const key of REQUIRED) if (!(key in manifest)) problems.push(`manifest.json has no "${key}"`);
	for (const key of Object.keys(manifest)) if (!ALLOWED.includes(key)) problems.push(`manifest.json has "${key}", which the directory does not accept`);
	const { id = "", name = "", description = "", version = "", author = "" } = manifest;
	if (/obsidian/i.test(id) || /plugin$/i.test(id) || !/^[a-z0-9-_]+$/.test(id)) problems.push(`the id "${id}" may not name Obsidian, end in "plugin", or hold more than a-z, 0-9, - and _`);
	if (/obsidian/i.test(name) || /plugin$/i.test(name)) problems.push(`the name "${name}" may not name Obsidian or end in "Plugin"`);
	if (/obsidian/i.test(description)) problems.push("the description may not name Obsidian");
	if (!/[.?!)]$/.test(description)) problems.push("the description must end with . ? ! or )");
	if (description.length > 250) problems.push(`the description has ${description.length} characters (at most 250)`);
	if (!/^[0-9.]+$/.test(version)) problems.push(`the version "${version}" may hold only numbers and dots`);
	if (!author.trim() || /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(author)) problems.push("the author must be a name (not an email address)");
	return problems;
}

function main() {
	const here = resolve(process.cwd());
	const out = resolve(process.argv[2] ?? join(here, "release"));
	const manifest = JSON.parse(readFileSync(join(here, "manifest.json"), "utf8"));
	const versions = JSON.parse(readFileSync(join(here, "versions.json"), "utf8"));
	const problems = manifestProblems(manifest);
	if (versions[manifest.version] !== manifest.minAppVersion) problems.push(`versions.json does not map ${manifest.version} to ${manifest.minAppVersion}: run npm run version`);
	for (const name of ["main.js", "styles.css", "LICENSE", "README.md"]) if (!existsSync(join(here, name))) problems.push(`${name} is missing${name === "main.js" ? ": run npm run build" : ""}`);
	if (problems.length) {
		console.error(`release layout: not ready to publish:\n  ${problems.join("\n  ")}`);
		process.exit(1);
	}
	rmSync(out, { recursive: true, force: true });
	const repo = join(out, "repository");
	const assets = join(out, manifest.version);
	mkdirSync(repo, { recursive: true });
	mkdirSync(assets, { recursive: true });
	for (const name of ["manifest.json", "versions.json", "LICENSE", "README.md"]) copyFileSync(join(here, name), join(repo, name));
	for (const name of ["main.js", "manifest.json", "styles.css"]) copyFileSync(join(here, name), join(assets, name));
	console.log(`release layout in ${out}: repository/ (its root) and ${manifest.version}/ (the release assets, tag "${manifest.version}")`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
