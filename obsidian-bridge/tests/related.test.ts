import { App } from "obsidian";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SearchResult } from "../src/api/types";
import { noteOpener } from "../src/links";
import { RelatedController, type RelatedState } from "../src/related/controller";
import { linkedPaths, parseFolders, relatedItems } from "../src/related/model";
import { RelatedView, VIEW_TYPE_RELATED } from "../src/related/view";
import { DEFAULT_SETTINGS, type Settings } from "../src/settings";
import { fakeDaemon, json, makeClient } from "./helpers";

const HITS = [
	{ path: "Current.md", title: "Current", heading: "", snippet: "itself", score: 1 },
	{ path: "Linked.md", title: "Linked", heading: "Top > Part", snippet: "linked text", score: 0.9 },
	{ path: "Inbox/2026-10-20 0805.md", title: "2026-10-20 0805", heading: "", snippet: "capture", score: 0.8 },
	{ path: "Other.md", title: "Other", heading: "Garden", snippet: "other text", score: 0.7 },
];

function result(hits = HITS): SearchResult {
	return { hits, mode: "vector", notice: null };
}

describe("which related notes show", () => {
	it("never the note itself; linked ones marked, or hidden; left-out folders never", () => {
		const filter = { current: "Current.md", linked: new Set(["Linked.md"]), hideLinked: false, exclude: ["Inbox/"] };
		expect(relatedItems(HITS, filter).map((i) => [i.path, i.linked])).toEqual([
			["Linked.md", true],
			["Other.md", false],
		]);
		expect(relatedItems(HITS, { ...filter, hideLinked: true }).map((i) => i.path)).toEqual(["Other.md"]);
	});

	it("counts links in both directions", () => {
		const resolved = { "Current.md": { "Linked.md": 1 }, "Back.md": { "Current.md": 2 }, "Else.md": { "Other.md": 1 } };
		expect([...linkedPaths(resolved, "Current.md")].sort()).toEqual(["Back.md", "Linked.md"]);
	});

	it("reads folders one per line", () => {
		expect(parseFolders(" Inbox \n/Archive/Old/\n\nDigests")).toEqual(["Inbox", "Archive/Old", "Digests"]);
	});
});

describe("the related-notes controller", () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	function setup(visible = { value: true }) {
		const calls: { path: string; signal: AbortSignal; resolve: (r: SearchResult) => void }[] = [];
		const states: RelatedState[] = [];
		const controller = new RelatedController({
			fetch: (path, signal) => new Promise((resolve) => calls.push({ path, signal, resolve })),
			render: (s) => states.push(s),
			visible: () => visible.value,
		});
		return { controller, calls, states };
	}

	it("waits until the note has been still for 250 ms", async () => {
		const { controller, calls } = setup();
		controller.noteChanged("A.md");
		await vi.advanceTimersByTimeAsync(100);
		controller.noteChanged("B.md");
		await vi.advanceTimersByTimeAsync(200);
		expect(calls).toHaveLength(0);
		await vi.advanceTimersByTimeAsync(60);
		expect(calls.map((c) => c.path)).toEqual(["B.md"]);
	});

	it("aborts the old request when the note changes, and never shows its answer", async () => {
		const { controller, calls, states } = setup();
		controller.noteChanged("A.md");
		await vi.advanceTimersByTimeAsync(250);
		controller.noteChanged("B.md");
		expect(calls[0]?.signal.aborted).toBe(true);
		calls[0]?.resolve(result()); // too late
		await vi.advanceTimersByTimeAsync(250);
		calls[1]?.resolve(result());
		await vi.advanceTimersByTimeAsync(0);
		expect(states.filter((s) => s.kind === "ready").map((s) => s.path)).toEqual(["B.md"]);
	});

	it("asks nothing while hidden, and catches up when shown", async () => {
		const visible = { value: false };
		const { controller, calls } = setup(visible);
		controller.noteChanged("A.md");
		await vi.advanceTimersByTimeAsync(1000);
		expect(calls).toHaveLength(0);
		visible.value = true;
		controller.shownAgain();
		await vi.advanceTimersByTimeAsync(250);
		expect(calls.map((c) => c.path)).toEqual(["A.md"]);
		controller.shownAgain(); // already shown: nothing more
		await vi.advanceTimersByTimeAsync(1000);
		expect(calls).toHaveLength(1);
	});

	it("stays on its note while pinned", async () => {
		const { controller, calls } = setup();
		controller.noteChanged("A.md");
		await vi.advanceTimersByTimeAsync(250);
		controller.setPinned(true, "A.md");
		controller.noteChanged("B.md");
		await vi.advanceTimersByTimeAsync(1000);
		expect(calls).toHaveLength(1);
		controller.setPinned(false, "C.md");
		await vi.advanceTimersByTimeAsync(250);
		expect(calls.map((c) => c.path)).toEqual(["A.md", "C.md"]);
	});

	it("leaves no timer or request behind when disposed", async () => {
		const { controller, calls } = setup();
		controller.noteChanged("A.md");
		await vi.advanceTimersByTimeAsync(250);
		controller.noteChanged("B.md");
		controller.dispose();
		expect(vi.getTimerCount()).toBe(0);
		expect(calls.every((c) => c.signal.aborted)).toBe(true);
	});
});

describe("the related-notes view", () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it("follows the active note, marks linked notes and opens one at its heading", async () => {
		const app = new App();
		app.metadataCache.resolvedLinks = { "Current.md": { "Linked.md": 1 } };
		const fake = fakeDaemon({ "GET /api/related": (r) => json({ results: r.url.searchParams.get("path") === "Current.md" ? HITS : [], mode: "vector", notice: null }) });
		const settings: Settings = { ...DEFAULT_SETTINGS, excludeFolders: ["Inbox"] };
		let saved = 0;
		app.workspace.viewCreators.set(VIEW_TYPE_RELATED, (leaf) => new RelatedView(leaf, { client: makeClient(fake.fetch), settings: () => settings, saveSettings: async () => void saved++, open: noteOpener(app) }));
		const leaf = await app.workspace.ensureSideLeaf(VIEW_TYPE_RELATED);
		const view = leaf.view as RelatedView;
		app.workspace.openFile("Current.md");
		await vi.advanceTimersByTimeAsync(300);
		const names = () => [...view.contentEl.querySelectorAll(".commonplace-related-name")].map((n) => n.textContent);
		expect(names()).toEqual(["Linked", "Other"]);
		expect(view.contentEl.querySelector(".is-linked .commonplace-badge")?.textContent).toBe("linked");
		expect(fake.requests[0]?.url.searchParams.getAll("exclude")).toEqual(["Inbox"]);
		(view.contentEl.querySelectorAll(".commonplace-related-name")[0] as HTMLElement).click();
		expect(app.workspace.opened).toEqual([{ link: "Linked#Part", source: "", newLeaf: false }]);
		await view.toggleLinked();
		expect(names()).toEqual(["Other"]);
		expect(settings.hideLinked).toBe(true);
		expect(saved).toBe(1);
		// another note: a new request, the list follows
		app.workspace.openFile("Empty.md");
		await vi.advanceTimersByTimeAsync(300);
		expect(view.contentEl.textContent).toContain("No related notes found.");
		// closing the view leaves no listener on the workspace
		leaf.detach();
		expect(app.workspace.listenerCount()).toBe(0);
	});
});
