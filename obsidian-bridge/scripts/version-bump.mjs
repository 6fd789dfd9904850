// Keeps the release files' versions in step, as obsidian-sample-plugin's version-bump.mjs does:
// `npm version 0.3.0` sets package.json, then this writes the same version into manifest.json
// and records "version": "minAppVersion" in versions.json (which the community directory reads
// to offer an older version to an older Obsidian). `--check` changes nothing and fails when the
// three disagree, so `make plugin` catches a version bumped by hand in one file only.
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";

const read = (name) => JSON.parse(readFileSync(name, "utf8"));
const pkg = read("package.json");
const manifest = read("manifest.json");
const versions = read("versions.json");
const target = process.env.npm_package_version ?? pkg.version;

if (process.argv.includes("--check")) {
	const problems = [];
	if (manifest.version !== pkg.version) problems.push(`manifest.json says ${manifest.version}, package.json ${pkg.version}`);
	if (versions[manifest.version] !== manifest.minAppVersion) {
		problems.push(`versions.json has no "${manifest.version}": "${manifest.minAppVersion}" (run: npm version ${manifest.version} --allow-same-version)`);
	}
	// One version number: the daemon ships the plugin it was built with (commonplace.__version__).
	let daemon = null;
	try {
		daemon = /__version__\s*=\s*"([^"]+)"/.exec(readFileSync("../daemon/commonplace/__init__.py", "utf8"))?.[1] ?? null;
	} catch {
		daemon = null; // the plugin on its own (its published repository)
	}
	if (daemon && daemon !== manifest.version) problems.push(`the daemon is ${daemon}, the plugin ${manifest.version}: they are released together (npm version ${daemon})`);
	if (problems.length) {
		console.error(`obsidian-bridge: the versions are not in step:\n  ${problems.join("\n  ")}`);
		process.exit(1);
	}
	console.log(`obsidian-bridge ${manifest.version} (Obsidian ${manifest.minAppVersion} or later): versions in step`);
} else {
	if (!/^[0-9]+\.[0-9]+\.[0-9]+$/.test(target)) {
		console.error(`obsidian-bridge: ${target} is not a version the community directory accepts (numbers and dots only)`);
		process.exit(1);
	}
	manifest.version = target;
	writeFileSync("manifest.json", JSON.stringify(manifest, null, "\t") + "\n");
	versions[target] = manifest.minAppVersion;
	writeFileSync("versions.json", JSON.stringify(versions, null, "\t") + "\n");
	console.log(`obsidian-bridge: manifest.json and versions.json now say ${target}`);
}
