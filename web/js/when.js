// Times on this page are read on the owner's clock: the daemon's timezone, not the phone's.
//
// The vault's captures are named and dated in the daemon's zone ("Inbox/2026-11-30 1805.md"), so
// a phone set to another zone (travelling) showed "13:05 · saved to Inbox/2026-11-30 1805.md"
// and cleared "Saved today" at its own midnight. /api/state names the zone; it is kept on the
// phone, so a page started offline still shows the vault's times. Until it is known, or in a
// browser that does not know it, the phone's own zone is used.

const ZONE_KEY = "commonplace.zone";

// Intl options that put a time in `zone`; {} (the phone's own) for none or an unknown one.
function inZone(zone) {
  if (!zone) return {};
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: zone });
    return { timeZone: zone };
  } catch {
    return {};
  }
}

// The daemon's zone as /api/state named it; true when it changed what the page shows.
export function setDaemonZone(zone) {
  if (!zone || zone === localStorage.getItem(ZONE_KEY)) return false;
  localStorage.setItem(ZONE_KEY, zone);
  return true;
}

function zoneOptions() {
  return inZone(localStorage.getItem(ZONE_KEY));
}

// YYYY-MM-DD of an instant in the daemon's zone.
export function dayOf(at) {
  return at.toLocaleDateString("en-CA", zoneOptions());
}

// "14:05" for an ISO time, in the daemon's zone; "" for anything that is not a time.
export function clockTime(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  return at.toLocaleTimeString("en-GB", { ...zoneOptions(), hour: "2-digit", minute: "2-digit" });
}

// "today 14:05", "yesterday 09:30" or "Mon 30 Nov 14:05" for an ISO time, in the daemon's zone
// and against the daemon's clock (`serverTime`, seconds), as a person reads it. Anything that is
// not a time is shown as it came.
export function whenText(iso, serverTime) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return String(iso);
  const now = serverTime ? new Date(serverTime * 1000) : new Date();
  const time = clockTime(iso);
  const day = dayOf(at);
  if (day === dayOf(now)) return `today ${time}`;
  const today = new Date(`${dayOf(now)}T00:00:00Z`); // the date alone: no DST edge
  if (day === new Date(today.getTime() - 86400000).toISOString().slice(0, 10)) return `yesterday ${time}`;
  const options = { ...zoneOptions(), weekday: "short", day: "numeric", month: "short" };
  return `${at.toLocaleDateString("en-GB", options).replace(",", "")} ${time}`;
}
