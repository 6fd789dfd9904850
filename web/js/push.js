// Push-notification opt-in: the weekly digest (and later the morning briefing) arrive as
// notifications. The daemon's public key comes from /api/push/key; the subscription goes to
// /api/push/subscribe.

import { getJSON, postJSON } from "./api.js";
import { $, show } from "./ui.js";

function keyBytes(base64url) {
  const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

export async function initPush() {
  const state = $("#push-state");
  const button = $("#push-toggle");
  button.addEventListener("click", toggle);
  if (!supported()) {
    state.textContent =
      "This browser can't receive notifications here. On iPhone, add the page to the Home Screen (Share › Add to Home Screen) and open it from there.";
    show(button, false);
    return;
  }
  await render();
}

async function currentSubscription() {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

async function render() {
  const state = $("#push-state");
  const button = $("#push-toggle");
  let subscription = null;
  try {
    subscription = await currentSubscription();
  } catch (ignored) {
    // no service worker yet
  }
  if (Notification.permission === "denied") {
    state.textContent = "Notifications are blocked for this page. Allow them in the browser's site settings.";
    show(button, false);
    return;
  }
  state.textContent = subscription ? "Notifications are on for this phone." : "Notifications are off.";
  button.textContent = subscription ? "Turn off notifications" : "Turn on notifications";
  show(button, true);
}

async function toggle() {
  const state = $("#push-state");
  try {
    const existing = await currentSubscription();
    if (existing) {
      await postJSON("/api/push/unsubscribe", { endpoint: existing.endpoint });
      await existing.unsubscribe();
    } else {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        state.textContent = "Notifications were not allowed, so none will be sent.";
        return;
      }
      const { publicKey } = await getJSON("/api/push/key");
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(publicKey),
      });
      await postJSON("/api/push/subscribe", subscription.toJSON());
    }
    await render();
  } catch (error) {
    state.textContent = `Could not change notifications: ${error.message}`;
  }
}
