import { App } from "obsidian";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SearchMode } from "../src/api/types";
import { noteOpener } from "../src/links";
import { SearchModal } from "../src/search/modal";
import { fakeDaemon, json, makeClient } from "./helpers";

const RESULTS = {
	results: [{ path: "Projects/Shed.md", title: "Shed", heading: "Plan > Materials", text: "timber from Jewson", score: 0.5 }],
	mode: "keyword",
	notice: "Showing keyword matches only: Ollama is not answering",
};

describe("the search modal", () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it("asks once the typing pauses, aborting the older query, and opens the pick at its heading", async () => {
		const app = new App();
		const fake = fakeDaemon({ "GET /api/search": () => json(RESULTS) });
		const modes: SearchMode[] = [];
		const modal = new SearchModal(app, makeClient(fake.fetch), noteOpener(app), "hybrid", (m) => modes.push(m));
		modal.open();
		const first = modal.getSuggestions("tim");
		await vi.advanceTimersByTimeAsync(50);
		const second = modal.getSuggestions("timber");
		await vi.advanceTimersByTimeAsync(250);
		expect(await first).toEqual([]);
		const hits = await second;
		expect(fake.requests.map((r) => r.url.searchParams.get("q"))).toEqual(["timber"]);
		expect(hits.map((h) => h.path)).toEqual(["Projects/Shed.md"]);
		expect(modal.modalEl.querySelector(".commonplace-notice")?.textContent).toContain("keyword matches only");
		const el = document.createElement("div");
		modal.renderSuggestion(hits[0]!, el);
		expect(el.textContent).toBe("ShedMaterialstimber from Jewson");
		modal.onChooseSuggestion(hits[0]!, new KeyboardEvent("keydown", { key: "Enter" }));
		expect(app.workspace.opened).toEqual([{ link: "Projects/Shed#Materials", source: "", newLeaf: false }]);
	});

	it("switches mode with Tab and searches again in it", async () => {
		const app = new App();
		const fake = fakeDaemon({ "GET /api/search": () => json(RESULTS) });
		const modes: SearchMode[] = [];
		const modal = new SearchModal(app, makeClient(fake.fetch), noteOpener(app), "hybrid", (m) => modes.push(m));
		modal.open();
		modal.inputEl.value = "timber";
		modal.scope.keys.get("Tab")!(new KeyboardEvent("keydown", { key: "Tab" }));
		await vi.advanceTimersByTimeAsync(250);
		expect(modes).toEqual(["keyword"]);
		expect(modal.placeholder).toBe("Search notes (keyword)");
		expect(fake.requests.map((r) => r.url.searchParams.get("mode"))).toEqual(["keyword"]);
		modal.cycleMode();
		modal.cycleMode();
		expect(modes).toEqual(["keyword", "vector", "hybrid"]);
		modal.close();
	});
});
