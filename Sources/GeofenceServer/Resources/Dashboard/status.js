// Online / offline: a device is online while its last fix is at most OFFLINE_AFTER_MS old.
// Ten minutes, as Traccar's default status timeout: several missed reports of a phone that
// reports every minute or two, yet a device that stopped reporting shows grey within minutes.
// The device list, the details and the map's dots all ask this one rule.
export const OFFLINE_AFTER_MS = 10 * 60 * 1000;

export function isOnline(lastFixTime, now = Date.now()) {
  const t = new Date(lastFixTime).getTime();
  return Number.isFinite(t) && now - t <= OFFLINE_AFTER_MS;
}

// "online" or "offline", for a badge's text and class.
export function statusWord(lastFixTime, now = Date.now()) { return isOnline(lastFixTime, now) ? 'online' : 'offline'; }
