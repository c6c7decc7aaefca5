// Small DOM helpers shared by the dashboard's modules. Text always goes in as text nodes or
// attributes (never as HTML), so ids and properties from the API cannot inject markup.

export const $ = (id) => document.getElementById(id);

export const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
};

// 2026-11-27 10:15:00Z
export function formatTime(t) {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

// "12 s ago", "5 min ago", "3 h ago", "2 d ago".
export function formatAge(t, now = Date.now()) {
  const s = Math.max(0, (now - new Date(t).getTime()) / 1000);
  if (!Number.isFinite(s)) return '';
  if (s < 90) return `${Math.round(s)} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

// A 1 h 05 min / 42 s style duration.
export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600), m = Math.round((seconds % 3600) / 60);
  return `${h} h ${String(m).padStart(2, '0')} min`;
}

// The value of a datetime-local input as RFC 3339 (UTC), or null when empty.
export function inputTime(input) {
  if (!input.value) return null;
  const d = new Date(input.value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.000Z$/, 'Z');
}

// Saves `text` as a file named `name` (a Blob URL; the page's policy allows it, no server
// round trip with the key in a URL).
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
