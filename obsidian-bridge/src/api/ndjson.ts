// Newline-delimited JSON from a streamed response body: pieces arrive cut anywhere, even inside
// a multi-byte character, so bytes are decoded in stream mode and lines are kept until complete.

export async function readNdjson(
	body: ReadableStream<Uint8Array>,
	onValue: (value: unknown) => void,
): Promise<void> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	let pending = "";
	try {
		for (;;) {
			const { done, value } = await reader.read();
			pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
			const lines = pending.split("\n");
			pending = done ? "" : (lines.pop() ?? "");
			for (const line of lines) {
				if (line.trim()) onValue(JSON.parse(line));
			}
			if (done) return;
		}
	} finally {
		reader.releaseLock();
	}
}
