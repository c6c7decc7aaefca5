// Replay of a device's track over a chosen period: the fixes from /v1/devices/{id}/track drawn
// on the map, the events of the period from /v1/events/history as marks on a time slider, and
// the device placed where the slider points (drag it, or play at 60× real time).
import { project } from './geo.js';
import { el, formatTime, inputTime } from './dom.js';

const SPEED = 60;   // seconds of track per second of playback

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
  }

  // The controls for device `id`: the period (the day before its last fix by default), a load
  // button, then the slider once a track is loaded.
  controls(id, lastTime) {
    const end = new Date(new Date(lastTime).getTime() + 1000);
    const from = el('input', { type: 'datetime-local', step: '1', id: 'replay-from', 'aria-label': 'Replay from' });
    const to = el('input', { type: 'datetime-local', step: '1', id: 'replay-to', 'aria-label': 'Replay to' });
    from.value = localInput(end.getTime() - 86400000);
    to.value = localInput(end);
    this.box = el('div', { class: 'replay', id: 'replay' },
      el('div', { class: 'replay-period' }, el('label', { class: 'inline' }, 'From ', from), el('label', { class: 'inline' }, 'To ', to)),
      el('div', { class: 'actions compact' }, el('button', { type: 'button', id: 'replay-load', onclick: () => this.load(id, from, to) }, 'Replay period')),
      el('div', { id: 'replay-body' }));
    return this.box;
  }

  async load(id, fromInput, toInput) {
    this.stop();
    const from = inputTime(fromInput), to = inputTime(toInput);
    const range = [from ? `from=${encodeURIComponent(from)}` : '', to ? `to=${encodeURIComponent(to)}` : ''].filter(Boolean).join('&');
    const body = this.box.querySelector('#replay-body');
    body.replaceChildren(el('p', { class: 'muted' }, 'Loading the track…'));
    let track, history;
    try {
      [track, history] = await Promise.all([
        this.api.get(`/v1/devices/${encodeURIComponent(id)}/track?${range}&limit=10000`),
        this.api.get(`/v1/events/history?device=${encodeURIComponent(id)}&${range}&limit=1000`),
      ]);
    } catch (e) { body.replaceChildren(); this.toast(e); return; }
    const fixes = track.fixes;
    if (!fixes.length) { body.replaceChildren(el('p', { class: 'muted' }, 'No fixes in this period.')); return; }
    const times = fixes.map((f) => new Date(f.timestamp).getTime());
    const t0 = times[0], t1 = times[times.length - 1];
    const events = history.events.slice().reverse();
    this.map.replay = {
      points: fixes.map((f) => project(f.longitude, f.latitude)),
      at: null,
      events: events.map((e) => { const [u, v] = project(e.longitude, e.latitude); return { u, v, kind: e.event }; }),
    };
    const slider = el('input', { type: 'range', min: '0', max: String(fixes.length - 1), value: '0', id: 'replay-slider', 'aria-label': 'Replay position' });
    const label = el('output', { id: 'replay-time' });
    const marks = el('div', { class: 'replay-marks', 'aria-hidden': 'true' }, events.map((e) => {
      const m = el('span', { class: `mark ${e.event}`, title: `${e.event} ${e.region} ${formatTime(e.time)}` });
      m.style.left = `${t1 > t0 ? ((new Date(e.time).getTime() - t0) / (t1 - t0)) * 100 : 0}%`;
      return m;
    }));
    const show = (i) => {
      const f = fixes[i];
      this.map.replay.at = project(f.longitude, f.latitude);
      this.map.requestRender();
      const passed = events.filter((e) => new Date(e.time).getTime() <= times[i]);
      const last = passed[passed.length - 1];
      label.textContent = `${formatTime(f.timestamp)} · fix ${i + 1} of ${fixes.length}${last ? ` · last: ${last.event} ${last.region}` : ''}`;
    };
    slider.addEventListener('input', () => { this.stop(); show(Number(slider.value)); });
    const play = el('button', { type: 'button', id: 'replay-play', onclick: () => this.play(slider, times, show, play) }, 'Play');
    body.replaceChildren(
      el('p', { class: 'muted' }, `${fixes.length.toLocaleString()} fixes, ${events.length} events${track.capped ? ' (the newest 10,000 fixes)' : ''}.`),
      el('div', { class: 'replay-track' }, marks, slider), label,
      el('div', { class: 'actions compact' }, play, el('button', { type: 'button', onclick: () => this.close() }, 'Clear')));
    show(0);
    const us = this.map.replay.points.map((p) => p[0]), vs = this.map.replay.points.map((p) => p[1]);
    this.map.fit([Math.min(...us), Math.min(...vs), Math.max(...us), Math.max(...vs)], 16);
  }

  play(slider, times, show, button) {
    if (this.timer) { this.stop(); button.textContent = 'Play'; return; }
    button.textContent = 'Pause';
    let i = Number(slider.value);
    if (i >= times.length - 1) i = 0;
    let clock = times[i];
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      clock += (now - last) * SPEED;
      last = now;
      while (i < times.length - 1 && times[i + 1] <= clock) i++;
      slider.value = String(i);
      show(i);
      if (i >= times.length - 1) { this.stop(); button.textContent = 'Play'; }
    }, 50);
  }

  stop() { clearInterval(this.timer); this.timer = 0; }

  close() {
    this.stop();
    if (this.map.replay) { this.map.replay = null; this.map.requestRender(); }
  }
}
