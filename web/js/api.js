// Talking to the daemon: JSON in, JSON out, one error shape.
// Every failure becomes an ApiError whose `message` can be shown as is; `offline` is true when
// the daemon could not be reached at all (the phone is off the tailnet, the computer sleeps).

export class ApiError extends Error {
  constructor(message, { status = 0, code = "", offline = false } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.offline = offline;
  }
}

const OFFLINE_MESSAGE = "Can't reach the daemon on your computer.";

async function send(path, options = {}, timeoutMs = 20000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let response;
  try {
    response = await fetch(path, { ...options, signal: controller.signal, cache: "no-store" });
  } catch (error) {
    throw new ApiError(OFFLINE_MESSAGE, { offline: true });
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    throw await errorFrom(response);
  }
  return response;
}

async function errorFrom(response) {
  let code = "http_" + response.status;
  let message = `The daemon answered ${response.status}.`;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch (ignored) {
    // not JSON: a proxy in between (tailscale serve with the daemon down answers 502)
  }
  const offline = response.status === 502 || response.status === 504;
  return new ApiError(offline ? OFFLINE_MESSAGE : message, { status: response.status, code, offline });
}

export async function getJSON(path) {
  const response = await send(path, { headers: { Accept: "application/json" } });
  return response.json();
}

export async function postJSON(path, body, timeoutMs) {
  const response = await send(
    path,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    },
    timeoutMs,
  );
  return response.json();
}

// A multipart form (a photo and its capture's fields, a share's words and files): the browser sets the boundary.
export async function postForm(path, form, timeoutMs = 180000) {
  const response = await send(path, { method: "POST", headers: { Accept: "application/json" }, body: form }, timeoutMs);
  return response.json();
}

export async function postAudio(path, blob) {
  const type = blob.type || "audio/webm";
  const response = await send(path, { method: "POST", headers: { "Content-Type": type }, body: blob }, 180000);
  return response.json();
}

// POST that answers NDJSON; calls onEvent(object) for each line.
export async function postStream(path, body, onEvent) {
  const response = await send(
    path,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
      body: JSON.stringify(body),
    },
    300000,
  );
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw new ApiError("The connection was lost while the answer was coming.", { offline: true });
    }
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) onEvent(JSON.parse(line));
    }
  }
  if (buffer.trim()) onEvent(JSON.parse(buffer));
}
