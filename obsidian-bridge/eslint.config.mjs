// Obsidian's review rules (eslint-plugin-obsidianmd's recommended set, which includes ESLint's
// and typescript-eslint's type-checked recommended rules), over the plugin's own source.
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
	{ ignores: ["main.js", "node_modules/**", "tests/**", "scripts/**", "release/**", "*.config.*", "esbuild.config.mjs"] },
	...obsidianmd.configs.recommended,
	{
		files: ["src/**/*.ts"],
		languageOptions: {
			parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
		},
	},
]);
