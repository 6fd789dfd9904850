// Service worker: keeps the page's own files for offline start, shows push notifications, and
// receives what other apps share (the manifest's share_target posts it to /share).
// API responses are never cached: they always come from the daemon or fail visibly.

const CACHE = "commonplace-shell-v5";
const SHARE_DB = "commonplace-shares"; // the share queue: js/shares.js sends and empties it
const SHELL = [
  "/",
  "/style.css",
  "/manifest.webmanifest",
  "/js/app.js",
  "/js/api.js",
  "/js/ask.js",
  "/js/assistant.js",
  "/js/capture.js",
  "/js/dictate.js",
  "/js/pair.js",
  "/js/push.js",
  "/js/search.js",
  "/js/shares.js",
  "/js/store.js",
  "/js/ui.js",
  "/js/when.js",
  "/icons/icon.svg",
  "/icons/icon-192.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// A share from another app: kept in the queue first (IndexedDB, files and all), so nothing is lost
// when the daemon cannot be reached; the page then sends it as one capture and says so.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method === "POST" && url.origin === self.location.origin && url.pathname === "/share") {
    event.respondWith(keepShare(event.request));
  }
});

async function keepShare(request) {
  try {
    const form = await request.formData();
    const files = form.getAll("files").filter((file) => file && typeof file !== "string" && file.size > 0);
    const text = (name) => (typeof form.get(name) === "string" ? form.get(name) : "");
    const share = {
      id: shareId(),
      captured: new Date().toISOString(),
      title: text("title"),
      text: text("text"),
      url: text("url"),
      files,
      error: "",
    };
    await putShare(share);
    return Response.redirect(`/?shared=${share.id}`, 303);
  } catch (error) {
    return Response.redirect("/?shared=failed", 303);
  }
}

function shareId() {
  if (self.crypto.randomUUID) return self.crypto.randomUUID();
  const bytes = self.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function putShare(share) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(SHARE_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore("shares", { keyPath: "id" });
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction("shares", "readwrite");
      tx.objectStore("shares").put(share);
      tx.oncomplete = () => {
        db.close();
        resolve();
      };
      tx.onerror = () => {
        db.close();
        reject(tx.error);
      };
    };
  });
}

// The shell: network first (so an update shows at once), the cached copy when offline.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) {
    return; // not ours to answer: the browser goes to the network
  }
  event.respondWith(
    fetch(event.request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(event.request, copy));
        }
        return response;
      })
      .catch(() => caches.match(event.request).then((hit) => hit || caches.match("/"))),
  );
});

self.addEventListener("push", (event) => {
  let message = { title: "Commonplace", body: "", tag: "commonplace", url: "/" };
  try {
    message = { ...message, ...event.data.json() };
  } catch (ignored) {
    if (event.data) message.body = event.data.text();
  }
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: message.body,
      tag: message.tag,
      icon: "/icons/icon-192.png",
      data: { url: message.url },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  if (target.origin !== self.location.origin) return; // only ever open our own page
  event.waitUntil(
    self.clients.matchAll({ type: "window" }).then((windows) => {
      for (const client of windows) {
        if ("focus" in client) return client.navigate(target.href).then((c) => (c || client).focus());
      }
      return self.clients.openWindow(target.href);
    }),
  );
});
