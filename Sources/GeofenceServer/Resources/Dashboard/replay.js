// Replay of a device's track over a chosen period, in a view of its own: the fixes from
// /v1/devices/{id}/track drawn on the map with nothing of the other devices, the events of
// the period from /v1/events/history as marks on a time slider and as a list that follows the
// slider, and the device placed where the slider points (drag it, or play at a chosen speed).
// The bar over the map's foot keeps the slider and the times in sight whatever the side panel
// shows.
import { project } from './geo.js';
import { $, el, formatTime, inputTime } from './dom.js';

const TICK_MS = 50;

const localInput = (t) => {
  const d = new Date(t);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

export class Replay {
  constructor({ api, map, toast }) {
    this.api = api;
    this.map = map;
    this.toast = toast;
    this.timer = 0;
    this.shown = null;   // {id, fixes, times, events, index}
    $('replay-close').addEventListener('click', () => this.close());
    $('replay-play').addEventListener('click', () => this.togglePlay());
    $('replay-slider').addEventListener('input', () => { this.stop(); this.show(Number($('replay-slider').value)); });
  }

  // The controls for device `id` in its details: the period (the day before its last fix by
  // default) and the button that opens the replay view.
  controls(id, lastTime) {
    const end = new Date(new Date(lastTime).getTime() + 1000);
    const from = el('input', { type: 'datetime-local', step: '1', id: 'replay-from', 'aria-label': 'Replay from' });
    const to = el('input', { type: 'datetime-local', step: '1', id: 'replay-to', 'aria-label': 'Replay to' });
    from.value = localInput(end.getTime() - 86400000);
    to.value = localInput(end);
    const status = el('p', { class: 'muted', id: 'replay-status' });
    return el('div', { class: 'replay', id: 'replay' },
      el('div', { class: 'replay-period' }, el('label', { class: 'inline' }, 'From ', from), el('label', { class: 'inline' }, 'To ', to)),
      el('div', { class: 'actions compact' }, el('button', { type: 'button', id: 'replay-load', onclick: () => this.load(id, from, to, status) }, 'Replay period')),
      status);
  }

  async load(id, fromInput, toInput, status) {
    this.stop();
    const from = inputTime(fromInput), to = inputTime(toInput);
    const range = [from ? `from=${encodeURIComponent(from)}` : '', to ? `to=${encodeURIComponent(to)}` : ''].filter(Boolean).join('&');
    status.textContent = 'Loading the track…';
    let track, history;
    try {
      [track, history] = await Promise.all([
        this.api.get(`/v1/devices/${encodeURIComponent(id)}/track?${range}&limit=10000`),
        this.api.get(`/v1/events/history?device=${encodeURIComponent(id)}&${range}&limit=1000`),
      ]);
    } catch (e) { status.textContent = ''; this.toast(e); return; }
    const fixes = track.fixes;
    if (!fixes.length) { status.textContent = 'No fixes in this period.'; return; }
    status.textContent = '';
    this.open(id, fixes, history.events.slice().reverse(), track.capped);
  }

  // Opens the view on `fixes` (oldest first) and `events` (oldest first).
  open(id, fixes, events, capped) {
    const times = fixes.map((f) => new Date(f.timestamp).getTime());
    const t0 = times[0], t1 = times[times.length - 1];
    this.shown = { id, fixes, times, events, index: 0 };
    this.map.replay = {
      points: fixes.map((f) => project(f.longitude, f.latitude)),
      at: null,
      events: events.map((e) => { const [u, v] = project(e.longitude, e.latitude); return { u, v, kind: e.event }; }),
    };
    $('replay-title').textContent = id;
    $('replay-summary').textContent = `${fixes.length.toLocaleString()} fixes, ${events.length} events${capped ? ' (the newest 10,000 fixes)' : ''}`;
    $('replay-start').textContent = formatTime(fixes[0].timestamp);
    $('replay-end').textContent = formatTime(fixes[fixes.length - 1].timestamp);
    const slider = $('replay-slider');
    slider.max = String(fixes.length - 1);
    slider.value = '0';
    $('replay-marks').replaceChildren(...events.map((e) => {
      const m = el('span', { class: `mark ${e.event}`, title: `${e.event} ${e.region} ${formatTime(e.time)}` });
      m.style.left = `${t1 > t0 ? ((new Date(e.time).getTime() - t0) / (t1 - t0)) * 100 : 0}%`;
      return m;
    }));
    $('replay-events').replaceChildren(...events.map((e, i) => el('li', {},
      el('button', { type: 'button', class: 'replay-event', 'data-index': String(i), onclick: () => this.showEvent(i) },
        el('span', { class: `badge ${e.event}` }, e.event), ' ', el('span', { class: 'clip', title: e.region }, e.region), ' ',
        el('time', { datetime: e.time }, formatTime(e.time))))));
    document.body.classList.add('replaying');
    $('replay-view').hidden = false;
    $('replay-play').textContent = 'Play';
    this.show(0);
    const us = this.map.replay.points.map((p) => p[0]), vs = this.map.replay.points.map((p) => p[1]);
    const bar = $('replay-view').getBoundingClientRect(), map = this.map.canvas.getBoundingClientRect();
    this.map.fit([Math.min(...us), Math.min(...vs), Math.max(...us), Math.max(...vs)], 16, Math.max(0, map.bottom - bar.top));
  }

  // Places the device at fix i; the label, the slider and the event list follow.
  show(i) {
    const s = this.shown;
    if (!s) return;
    s.index = i;
    const f = s.fixes[i];
    this.map.replay.at = project(f.longitude, f.latitude);
    this.map.requestRender();
    $('replay-slider').value = String(i);
    let last = -1;
    s.events.forEach((e, k) => { if (new Date(e.time).getTime() <= s.times[i]) last = k; });
    for (const b of $('replay-events').querySelectorAll('.replay-event')) {
      const k = Number(b.dataset.index);
      b.classList.toggle('passed', k <= last);
      b.classList.toggle('current', k === last);
      if (k === last) b.scrollIntoView({ block: 'nearest' });
    }
    const e = s.events[last];
    $('replay-time').textContent = `${formatTime(f.timestamp)} · fix ${i + 1} of ${s.fixes.length}${e ? ` · last: ${e.event} ${e.region}` : ''}`;
  }

  // Moves the slider to the first fix at or after event k.
  showEvent(k) {
    const s = this.shown;
    this.stop();
    const t = new Date(s.events[k].time).getTime();
    const i = s.times.findIndex((x) => x >= t);
    this.show(i < 0 ? s.times.length - 1 : i);
  }

  togglePlay() {
    if (this.timer) { this.stop(); return; }
    const s = this.shown;
    if (!s) return;
    let i = s.index >= s.times.length - 1 ? 0 : s.index;
    let clock = s.times[i], last = performance.now();
    $('replay-play').textContent = 'Pause';
    this.timer = setInterval(() => {
      const now = performance.now();
      clock += (now - last) * Number($('replay-speed').value);
      last = now;
      while (i < s.times.length - 1 && s.times[i + 1] <= clock) i++;
      this.show(i);
      if (i >= s.times.length - 1) this.stop();
    }, TICK_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = 0;
    $('replay-play').textContent = 'Play';
  }

  close() {
    this.stop();
    this.shown = null;
    $('replay-view').hidden = true;
    document.body.classList.remove('replaying');
    if (this.map.replay) { this.map.replay = null; this.map.requestRender(); }
  }

  // What the view shows, for the browser test: the fixes as [lon, lat, time], the events, and
  // the fix the device is placed at.
  describe() {
    const s = this.shown;
    if (!s) return null;
    const f = s.fixes[s.index];
    return { device: s.id, points: s.fixes.map((x) => [x.longitude, x.latitude, x.timestamp]), events: s.events.length,
      index: s.index, at: [f.longitude, f.latitude] };
  }
}
