import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The `obsidian` npm package is types only: tests run against a small stand-in of the parts
// the plugin uses (tests/stand-in/obsidian.ts), with happy-dom for the DOM.
export default defineConfig({
	resolve: {
		alias: { obsidian: fileURLToPath(new URL("./tests/stand-in/obsidian.ts", import.meta.url)) },
	},
	test: {
		environment: "happy-dom",
		include: ["tests/**/*.test.ts"],
		setupFiles: ["tests/setup.ts"],
	},
});
