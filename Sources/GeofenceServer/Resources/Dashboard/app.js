// The dashboard: sign-in, the map's data (regions by viewport, devices, live events),
// details, and editing through /v1. Everything the user sees comes from the API; the key
// lives in sessionStorage and travels only in the Authorization header.
import { Api, ApiProblem } from './api.js';
import { MapView, COLORS, clusterRadius } from './map.js';
import { project, circleRing, projectRing, ringsBounds, formatDistance, metresPerUnit } from './geo.js';
import { Editor } from './edit.js';
import { $, el, formatTime, formatDuration, formatAge } from './dom.js';
import { Panels } from './panels.js';
import { Replay } from './replay.js';
import { Track } from './tracks.js';
import { isOnline, statusWord } from './status.js';

const KEY = 'geofence.apiKey';
const REGION_PAGE = 1000;   // regions per viewport request (the server's largest page); more: clusters
const EVENTS_KEPT = 200;
const POLLED_DEVICES = 100; // devices whose last fix is re-read every POLL_MS (last seen first)
const POLL_MS = 5000;
const LOAD_BURST_MS = 40;   // view steps closer than this (key repeat, wheel notches) load once, after the last

const state = {
  api: null, map: null, editor: null, stream: null,
  built: new Map(),        // region id -> drawable (rings in unit coordinates), reused across loads
  devices: new Map(),      // id -> {id, u, v, lon, lat, track, inside: Set, time}
  events: [],              // newest first
  selected: null,
  viewLoad: null, viewTimer: 0, lastStepAt: -Infinity,
  stats: { loads: [] },
};
window.geofenceDashboard = state.stats;   // read by the browser test and by curious operators
state.stats.screenOf = (lon, lat) => { const [u, v] = project(lon, lat); return state.map.toScreen(state.map.near(u), v); };
state.stats.frames = () => state.map.frameTimes.slice();
state.stats.framesDrawn = () => state.map.framesDrawn || 0;
state.stats.view = () => ({ u: state.map.u, v: state.map.v, zoom: state.map.zoom, bbox: state.map.bbox() });
state.stats.setView = (lon, lat, zoom) => state.map.setView(lon, lat, zoom);
state.stats.replay = () => state.replay.describe();
state.stats.drawnDevices = () => state.map.drawnDevices.slice();
state.stats.trackLayer = () => { const l = state.map.trackLayer; return l && { segments: l.segments, buildMs: state.map.lastTrackLayerMs, version: l.version }; };
// Fixes for the live map as the stream and the poll deliver them ([[lon, lat, time]] per
// device id): the browser test fills a fleet's tracks through the page's own path.
state.stats.trackLengths = () => Object.fromEntries([...state.devices.values()].map((d) => [d.id, d.track.length]));
state.stats.select = (id) => select(id === null ? null : { type: 'device', id });
state.stats.clusters = () => (state.map.shownClusters || []).map((c) => {
  const [x, y] = state.map.toScreen(c.u, c.v);
  return { x, y, r: clusterRadius(c.count), count: c.count };
});
state.stats.feed = (byDevice) => {
  for (const [id, fixes] of Object.entries(byDevice)) for (const [lon, lat, t] of fixes) moveDevice(device(id), lon, lat, t);
  state.map.tracksChanged();
};

// MARK: Sign-in

async function signIn(key) {
  const api = new Api(key);
  let grant;
  try {
    grant = await api.get('/v1/key');
  } catch (e) {
    sessionStorage.removeItem(KEY);
    const msg = e instanceof ApiProblem && e.status === 401
      ? 'The server did not accept this API key (401 Unauthorized). Check that it was copied whole, or create one with “geofence serve create-key --tenant NAME”.'
      : e instanceof ApiProblem && e.status === 403
      ? 'This key can only report locations (scope “ingest”): sign in with a read or admin key.'
      : `Could not reach the server: ${e.message}`;
    showSignIn(msg);
    return;
  }
  sessionStorage.setItem(KEY, key);
  state.api = api;
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('session').hidden = false;
  // What the key may do: a read key views only (the server answers 403 to any write).
  const readOnly = grant.scope === 'read';
  $('key-scope').hidden = !readOnly;
  for (const id of ['draw-circle', 'draw-polygon']) $(id).disabled = readOnly;
  await startDashboard();
}

function showSignIn(message) {
  $('app').hidden = true;
  $('session').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message || '';
  $('api-key').value = '';
  $('api-key').focus();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  if (state.stream) state.stream.stop();
  location.hash = '';
  location.reload();
}

// MARK: Start

// The page's configuration (tiles), asked for at once, beside the key's check.
const configLoad = fetch('/dashboard/config.json').then((r) => r.json()).catch(() => ({}));

async function startDashboard() {
  const config = await configLoad;
  if (config.tileAttribution) { $('attribution').textContent = config.tileAttribution; $('attribution').hidden = false; }
  state.map = new MapView($('map'), {
    tiles: config.tileURL ? { url: config.tileURL, subdomains: config.tileSubdomains || [], maxZoom: config.tileMaxZoom ?? 19 } : null,
    onViewChange: scheduleViewLoad,
    onClick: (u, v, x, y) => (state.editor.active ? state.editor.click(u, v, x, y) : clicked(state.map.hitTest(x, y))),
    onPointerMove: (x, y) => state.editor.pointer(x, y),
  });
  state.editor = new Editor(state.map, { api: state.api, onSaved: regionSaved, showProblem: toast });
  state.panels = new Panels({
    api: state.api, map: state.map, select, centreOn, flyTo, toast, toastInfo, eventRow,
    onImported: () => { state.built.clear(); loadViewport(); },
  });
  state.replay = new Replay({ api: state.api, map: state.map, toast });
  bindControls();
  // The view in the address (#map=zoom/lat/lon) wins and loads at once, beside the recent
  // events; otherwise the view is fitted to the content once the recent events have placed
  // the devices. The address follows the view only from then on.
  const fromHash = restoreViewFromHash();
  if (fromHash) { state.viewReady = true; loadViewport(); }
  const recent = await loadRecentEvents().catch((e) => { toast(e); return 0; });
  if (!fromHash) {
    await fitToContent();
    state.viewReady = true;
    scheduleViewLoad();
  }
  pollDevices();
  setInterval(pollDevices, POLL_MS);
  state.stream = state.api.stream(recent, handleEvent, streamStatus);
}

// The stream's state, shown in the top bar; when the server stops answering, a banner across
// the page says so (with the time of the last data) until it answers again.
function streamStatus(text, live, retryAt) {
  $('live').textContent = text;
  $('live').classList.toggle('on', live);
  $('live').classList.toggle('off', !live);
  if (text === 'Key rejected') { showSignIn('The API key was revoked or is no longer valid (401).'); return; }
  document.body.classList.toggle('is-offline', !live);
  $('offline').hidden = live;
  if (live) { state.lastLive = new Date(); return; }
  const since = state.lastLive ? ` Data shown is from ${formatTime(state.lastLive)}.` : '';
  const next = retryAt ? ` Retrying in ${Math.max(1, Math.round((retryAt - Date.now()) / 1000))} s.` : '';
  $('offline-text').textContent = `The server is not answering.${since}${next}`;
}

function clicked(target) {
  if (target && target.type === 'cluster') {
    state.map.fit(target.bounds);
    return;
  }
  select(target);
}

// Fits the view to [west, south, east, north] in degrees (west > east: across 180°).
function flyTo(b) {
  let [u0, v1] = project(b[0], b[1]);
  let [u1, v0] = project(b[2], b[3]);
  if (u1 < u0) u1 += 1;
  state.map.fit([u0, v0, u1, v1], 17);
}

function bindControls() {
  $('zoom-in').addEventListener('click', () => state.map.zoomAt(1));
  $('zoom-out').addEventListener('click', () => state.map.zoomAt(-1));
  $('fit').addEventListener('click', () => fitToContent());
  $('draw-circle').addEventListener('click', () => state.editor.start('circle'));
  $('draw-polygon').addEventListener('click', () => state.editor.start('polygon'));
  $('toggle-tracks').addEventListener('click', () => {
    state.map.showTracks = !state.map.showTracks;
    $('toggle-tracks').setAttribute('aria-pressed', String(state.map.showTracks));
    state.map.requestRender();
  });
  $('sign-out').addEventListener('click', signOut);
  $('offline-retry').addEventListener('click', () => state.stream && state.stream.retryNow());
  $('details-close').addEventListener('click', () => select(null));
  window.addEventListener('hashchange', restoreViewFromHash);   // a pasted link, back / forward
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !$('region-dialog').open) {
      if (state.editor.active) state.editor.cancel(); else select(null);
    }
  });
}

// MARK: View and regions

function restoreViewFromHash() {
  const m = /^#map=([\d.]+)\/(-?[\d.]+)\/(-?[\d.]+)$/.exec(location.hash);
  if (!m) return false;
  state.map.setView(+m[3], +m[2], +m[1]);
  return true;
}

// Fits the view to the tenant's regions (the first page by id) and recent events.
async function fitToContent() {
  let rings = [];
  try {
    const page = await state.api.get(`/v1/regions?limit=${REGION_PAGE}`);
    rings = page.regions.map((f) => drawable(f)).filter(Boolean).map((r) => Float64Array.from(r.bounds));
  } catch (e) { toast(e); }
  for (const d of state.devices.values()) rings.push(Float64Array.from([d.u, d.v]));
  if (!rings.length) { state.map.setView(0, 20, 2); return; }
  state.map.fit(ringsBounds(rings));
}

function scheduleViewLoad() {
  const now = performance.now();
  state.stats.inputAt = now;
  if (!state.viewReady) return;
  // While a pointer drags or pinches nothing is loaded (the map calls again on release: a
  // load's parsing and its new layer would cost frames of the drag). A discrete step (a key, a
  // button, a wheel notch, a link, a release) loads at once unless another came within
  // LOAD_BURST_MS; then the burst's last step loads LOAD_BURST_MS after it.
  clearTimeout(state.viewTimer);
  if (state.map.interacting) return;
  const burst = now - state.lastStepAt < LOAD_BURST_MS;
  state.lastStepAt = now;
  if (burst) state.viewTimer = setTimeout(loadViewport, LOAD_BURST_MS); else loadViewport();
  const [lon, lat] = state.map.center();
  history.replaceState(null, '', `#map=${state.map.zoom.toFixed(2)}/${lat.toFixed(5)}/${lon.toFixed(5)}`);
}

// What the view shows (plus a quarter of it on each side, so a short pan needs nothing new):
// the regions when at most REGION_PAGE overlap it, otherwise the server's clusters.
async function loadViewport() {
  if (state.viewLoad) state.viewLoad.abort();
  const controller = new AbortController();
  state.viewLoad = controller;
  const started = performance.now();
  let page;
  try {
    const bbox = state.map.bbox(0.25).map((x) => x.toFixed(6)).join(',');
    page = await state.api.get(`/v1/regions/map?bbox=${bbox}&zoom=${state.map.zoom.toFixed(2)}&limit=${REGION_PAGE}`, controller.signal);
  } catch (e) {
    if (e.name !== 'AbortError') toast(e);
    return;
  }
  const received = performance.now();
  const regions = [];
  for (const f of page.regions) { const r = drawable(f); if (r) regions.push(r); }
  const clusters = page.clusters.map((c) => {
    const [u, v] = project(c.longitude, c.latitude);
    const [u0, v1] = project(c.bbox[0], c.bbox[1]), [u1, v0] = project(c.bbox[2], c.bbox[3]);
    return { u, v, count: c.count, bounds: [u0, v0, u1, v1] };
  });
  markOccupied(regions);
  state.map.setRegions(regions, clusters);
  const shown = regions.length, matched = page.matched ?? shown;
  $('coverage').textContent = clusters.length
    ? `${matched.toLocaleString()} regions in ${clusters.length.toLocaleString()} cluster${clusters.length === 1 ? '' : 's'} — zoom in or click a cluster for outlines`
    : `${shown.toLocaleString()} region${shown === 1 ? '' : 's'} in view`;
  $('coverage').classList.toggle('more', clusters.length > 0);
  requestAnimationFrame(() => {
    // setRegions asked for the map's frame first: it has drawn the new layer just before this.
    const painted = performance.now();
    const layerMs = state.map.lastLayerMs;
    state.stats.loads.push({ regions: shown, clusters: clusters.length, matched, fetchMs: received - started, paintMs: painted - started,
      drawMs: state.map.lastPaint, layerMs, sinceInputMs: painted - state.stats.inputAt, inputAt: state.stats.inputAt,
      devicesPending: Boolean(state.map.trackBuild) });
    if (state.stats.loads.length > 50) state.stats.loads.shift();
    state.stats.loadCount = (state.stats.loadCount || 0) + 1;
    state.stats.lastPaintedAt = painted;
  });
}

// A region feature as the map draws it: rings in unit Mercator coordinates, cached by id
// until the feature changes.
function drawable(f) {
  const id = f.properties && f.properties.id !== undefined ? String(f.properties.id) : String(f.id);
  const g = f.geometry;
  const key = `${g.type}:${JSON.stringify(g.coordinates).length}:${g.coordinates.flat(3).slice(0, 4).join(',')}:${f.properties.radius ?? ''}`;
  const cached = state.built.get(id);
  if (cached && cached.key === key) { cached.feature = f; return cached; }
  let rings;
  if (g.type === 'Point') {
    rings = [projectRing(circleRing(g.coordinates[0], g.coordinates[1], f.properties.radius))];
  } else if (g.type === 'Polygon') {
    rings = g.coordinates.map(projectRing);
  } else if (g.type === 'MultiPolygon') {
    rings = g.coordinates.flatMap((p) => p.map(projectRing));
  } else return null;
  const r = { id, key, feature: f, rings, bounds: ringsBounds(rings), occupied: false };
  if (g.type === 'Point') {
    const [cu, cv] = project(g.coordinates[0], g.coordinates[1]);
    r.circle = [cu, cv, f.properties.radius / metresPerUnit(g.coordinates[1])];
  }
  if (state.built.size > 50000) state.built.clear();
  state.built.set(id, r);
  return r;
}

// Marks the regions a known device is inside (drawn green); redraws the map's layer when
// that changed.
function markOccupied(regions = null) {
  const occupied = new Set();
  for (const d of state.devices.values()) for (const id of d.inside) occupied.add(id);
  let changed = false;
  for (const r of regions || state.map.regions) {
    const o = occupied.has(r.id);
    if (r.occupied !== o) { r.occupied = o; changed = true; }
  }
  if (changed && !regions) state.map.invalidate();
}

// MARK: Events and devices

// The newest EVENTS_KEPT events (one request, newest first); the stream continues after the
// newest one's cursor.
async function loadRecentEvents() {
  const { events } = await state.api.get(`/v1/events/history?limit=${EVENTS_KEPT}`);
  for (const e of events.slice().reverse()) handleEvent(e, { quiet: true });
  renderEventList();
  markOccupied();
  return events.length ? Number(events[0].cursor) : 0;
}

function device(id) {
  let d = state.devices.get(id);
  if (!d) {
    d = { id, u: 0, v: 0, lon: 0, lat: 0, track: new Track(), inside: new Set(), time: '' };
    state.devices.set(id, d);
    state.map.devices = state.devices;
  }
  return d;
}

// A fix of device d: its position when newer than the one known, and its live track.
function moveDevice(d, lon, lat, time) {
  const t = new Date(time).getTime();
  if (d.time && t < new Date(d.time).getTime()) return;
  const [u, v] = project(lon, lat);
  const online = isOnline(time);
  // The devices layer is rebuilt only for a change it shows: the 5-second poll re-reads the
  // same fixes of a hundred devices, and a rebuild of a fleet's tracks is the page's dearest
  // drawing.
  const changed = d.u !== u || d.v !== v || d.online !== online;
  d.u = u; d.v = v; d.lon = lon; d.lat = lat;
  d.time = time;
  d.online = online;
  if (d.track.append(u, v, t) || changed) state.map.tracksChanged();
}

// The stream tells where devices crossed a boundary; between events, and for devices with no
// event yet, the most recently seen devices' last fixes and regions come from one
// GET /v1/devices every POLL_MS (last seen first).
async function pollDevices() {
  if (document.hidden || !state.api || state.polling) return;
  state.polling = true;
  try {
    const page = await state.api.get(`/v1/devices?limit=${POLLED_DEVICES}`).catch(() => null);
    if (!page) return;
    for (const s of page.devices) {
      const d = device(s.id);
      moveDevice(d, s.lastFix.longitude, s.lastFix.latitude, s.lastFix.timestamp);
      d.inside = new Set(s.inside);
    }
    // A device falls silent without any message: its state follows the clock.
    let changed = false;
    for (const d of state.devices.values()) {
      const online = isOnline(d.time);
      if (d.online !== online) { d.online = online; changed = true; }
    }
    if (changed) state.map.tracksChanged();
    markOccupied();
    state.map.requestRender();
  } finally {
    state.polling = false;
  }
}

function handleEvent(e, { quiet = false } = {}) {
  if (state.events.some((x) => x.id === e.id)) return;
  state.events.unshift(e);
  if (state.events.length > EVENTS_KEPT) state.events.pop();
  const d = device(e.device);
  moveDevice(d, e.longitude, e.latitude, e.time);
  if (e.event === 'enter' || e.event === 'dwell') d.inside.add(e.region);
  if (e.event === 'exit') d.inside.delete(e.region);
  if (quiet) return;
  const [u, v] = project(e.longitude, e.latitude);
  state.map.flash(u, v, COLORS[e.event] || COLORS.device);
  markOccupied();
  scheduleEventList(e.id);
  const s = state.selected;
  if (s && ((s.type === 'device' && s.id === e.device) || (s.type === 'region' && s.id === e.region))) showDetails(s);
}

// A burst of events (a replayed backlog, a busy tenant) redraws the list at most every 150 ms.
function scheduleEventList(freshID) {
  (state.freshIDs ||= new Set()).add(freshID);
  if (state.listTimer) return;
  state.listTimer = setTimeout(() => {
    state.listTimer = 0;
    renderEventList(state.freshIDs);
    state.freshIDs = new Set();
  }, 150);
}

const VERB = { enter: 'entered', exit: 'left', dwell: 'dwells in' };

function renderEventList(fresh = new Set()) {
  const list = $('event-list');
  list.replaceChildren(...state.events.slice(0, EVENTS_KEPT).map((e) => {
    const li = eventRow(e);
    if (fresh.has(e.id)) li.className = 'fresh';
    return li;
  }));
  $('event-count').textContent = state.events.length ? `${state.events.length} recent` : 'none yet';
  $('events-empty').hidden = state.events.length > 0;
}

// One event as a list row: the badge, the device and the region each in a box of its own (a
// long device id is cut short with an ellipsis and never pushes the region out), the time.
function eventRow(e) {
  return el('li', {}, el('button', {
    type: 'button', class: 'event', 'data-event': e.event, 'data-device': e.device, 'data-region': e.region,
    onclick: () => { select({ type: 'device', id: e.device }); centreOn(e.longitude, e.latitude); },
  },
  el('span', { class: `badge ${e.event}` }, e.event),
  el('span', { class: 'what' },
    el('strong', { class: 'who', title: e.device }, e.device),
    el('span', { class: 'verb' }, VERB[e.event] || e.event),
    el('strong', { class: 'where', title: e.region }, e.region)),
  el('time', { datetime: e.time }, formatTime(e.time))));
}

function centreOn(lon, lat) {
  const [u, v] = project(lon, lat);
  const [x, y] = state.map.toScreen(state.map.near(u), v);
  if (x < 40 || y < 40 || x > state.map.width - 40 || y > state.map.height - 40) {
    state.map.u = u; state.map.v = v; state.map.wrap(); state.map.changed();
  }
}

// MARK: Selection and details

function select(target) {
  state.selected = target;
  state.map.selectedRegion = null;
  // The replay view stays while a region is looked at; another device or none closes it.
  if (!target || (target.type === 'device' && state.replay.shown && state.replay.shown.id !== target.id)) state.replay.close();
  state.map.selected = target;
  state.map.requestRender();
  if (!target) { $('details').hidden = true; return; }
  showDetails(target);
}

async function showDetails(target) {
  const box = $('details-body');
  $('details').hidden = false;
  try {
    if (target.type === 'region') await regionDetails(target.id, box);
    else await deviceDetails(target.id, box);
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 404) {
      box.replaceChildren(el('p', { class: 'muted' }, e.detail));
    } else toast(e);
  }
}

function row(label, value) { return el('div', { class: 'row' }, el('dt', {}, label), el('dd', {}, value)); }

async function regionDetails(id, box) {
  const f = await state.api.get(`/v1/regions/${encodeURIComponent(id)}`);
  if (!state.selected || state.selected.id !== id) return;
  const p = f.properties, g = f.geometry;
  $('details-title').textContent = id;
  $('details-kind').textContent = 'Region';
  const shape = g.type === 'Point'
    ? `Circle, radius ${formatDistance(p.radius)} around ${g.coordinates[1].toFixed(5)}, ${g.coordinates[0].toFixed(5)}`
    : g.type === 'Polygon'
      ? `Polygon, ${g.coordinates[0].length - 1} vertices${g.coordinates.length > 1 ? `, ${g.coordinates.length - 1} hole(s)` : ''}`
      : `MultiPolygon, ${g.coordinates.length} parts`;
  const meta = Object.entries(p).filter(([k]) => !['id', 'radius', 'notifyOnEntry', 'notifyOnExit', 'dwell'].includes(k));
  state.map.selectedRegion = drawable(f);
  state.map.requestRender();
  const enc = encodeURIComponent(id);
  const [figures, inside, history] = await Promise.all([
    state.api.get(`/v1/regions/${enc}/figures`).catch(() => null),
    state.api.get(`/v1/devices?inside=${enc}&limit=25`).catch(() => ({ devices: [], next: null })),
    state.api.get(`/v1/events/history?region=${enc}&limit=10`).catch(() => ({ events: [] })),
  ]);
  if (!state.selected || state.selected.id !== id) return;
  const events = history.events;
  const editBtn = el('button', { type: 'button', onclick: () => state.editor.edit(f) }, 'Edit');
  const delBtn = el('button', { type: 'button', class: 'danger', id: 'delete-region' }, 'Delete');
  delBtn.addEventListener('click', async () => {
    if (!delBtn.classList.contains('confirm')) {
      delBtn.classList.add('confirm'); delBtn.textContent = 'Click again to delete';
      return;
    }
    try {
      await state.api.delete(`/v1/regions/${encodeURIComponent(id)}`);
      state.built.delete(id);
      state.map.setRegions(state.map.regions.filter((r) => r.id !== id), state.map.clusters);
      select(null);
      toastInfo(`Region “${id}” deleted.`);
      loadViewport();
    } catch (e) { toast(e); }
  });
  box.replaceChildren(
    el('dl', {}, row('Shape', shape),
      row('Notifies on', [p.notifyOnEntry === false ? null : 'entry', p.notifyOnExit === false ? null : 'exit'].filter(Boolean).join(', ') || 'nothing'),
      p.dwell !== undefined ? row('Dwell', `${p.dwell} s`) : null,
      ...meta.map(([k, v]) => row(k, String(v)))),
    el('div', { class: 'actions' }, editBtn,
      el('button', { type: 'button', onclick: () => state.editor.move(f) }, 'Move'),
      el('button', { type: 'button', onclick: () => state.editor.reshape(f) }, 'Reshape'),
      delBtn, el('button', { type: 'button', onclick: () => zoomToRegion(id) }, 'Zoom to')),
    figures ? el('div', { class: 'figures', id: 'region-figures' },
      figure(figures.entriesToday, 'entries today'), figure(figures.entriesThisWeek, 'entries, 7 days'),
      figure(figures.insideNow, 'inside now'), figure(formatDuration(figures.medianDwellSeconds), 'median visit')) : null,
    el('h3', {}, 'Devices inside now'),
    inside.devices.length ? el('ul', { class: 'states' }, inside.devices.map((d) => el('li', {},
      el('span', { class: 'state inside' }, 'inside'), ' ', el('span', { class: 'clip', title: d.id }, d.id))),
      inside.next ? el('li', { class: 'muted' }, 'and more (Devices panel, “Inside region”)') : null)
      : el('p', { class: 'muted' }, 'No device is inside now.'),
    el('h3', {}, 'Last events'), eventTable(events),
    el('h3', {}, 'Webhook deliveries'), await deliveriesFor(events));
}

async function deviceDetails(id, box) {
  const s = await state.api.get(`/v1/devices/${encodeURIComponent(id)}/state`);
  if (!state.selected || state.selected.id !== id) return;
  const d = device(id);
  const fix = s.lastFix;
  moveDevice(d, fix.longitude, fix.latitude, fix.timestamp);
  d.inside = new Set(s.inside);
  markOccupied();
  $('details-title').textContent = id;
  $('details-kind').textContent = 'Device';
  const events = (await state.api.get(`/v1/events/history?device=${encodeURIComponent(id)}&limit=10`)
    .catch(() => ({ events: [] }))).events;
  if (!state.selected || state.selected.id !== id) return;
  box.replaceChildren(
    el('dl', {},
      row('Status', el('span', { class: `status ${statusWord(fix.timestamp)}`, id: 'device-status' }, statusWord(fix.timestamp))),
      row('Last fix', formatTime(fix.timestamp)),
      row('Position', `${fix.latitude.toFixed(6)}, ${fix.longitude.toFixed(6)}`),
      fix.horizontalAccuracy !== undefined ? row('Accuracy', `±${fix.horizontalAccuracy} m`) : null,
      s.battery ? row('Battery', el('span', { id: 'device-battery', title: `reported ${formatTime(s.battery.time)}` },
        `${Math.round(s.battery.percent)} % (${formatAge(s.battery.time)})`)) : null,
      row('Inside', s.inside.length ? s.inside.join(', ') : 'no region'),
      s.pending.length ? row('Pending', s.pending.join(', ')) : null),
    el('div', { class: 'actions' }, el('button', { type: 'button', onclick: () => centreOn(fix.longitude, fix.latitude) }, 'Show on map')),
    el('h3', {}, 'Replay'), state.replay.controls(id, fix.timestamp),
    el('h3', {}, 'Last events'), eventTable(events),
    el('h3', {}, 'Webhook deliveries'), await deliveriesFor(events));
}

function figure(value, label) {
  return el('div', { class: 'figure' }, el('strong', {}, String(value)), el('span', {}, label));
}

function eventTable(events) {
  if (!events.length) return el('p', { class: 'muted' }, 'No events.');
  return el('ul', { class: 'mini-events' }, events.map((e) => el('li', {},
    el('span', { class: `badge ${e.event}` }, e.event), ' ', el('span', { class: 'clip', title: e.device }, e.device), ' · ',
    el('span', { class: 'clip', title: e.region }, e.region), ' · ', el('time', {}, formatTime(e.time)))));
}

// The deliveries of `events` to each of the tenant's webhooks (the last 500 per webhook).
async function deliveriesFor(events) {
  if (!events.length) return el('p', { class: 'muted' }, 'No events, so no deliveries.');
  let hooks;
  try { hooks = (await state.api.get('/v1/webhooks')).webhooks; } catch (e) { return el('p', { class: 'muted' }, e.message); }
  if (!hooks.length) return el('p', { class: 'muted' }, 'No webhooks registered.');
  const ids = new Set(events.map((e) => e.id));
  const rows = [];
  for (const h of hooks.slice(0, 5)) {
    const { items } = await state.api.tail(`/v1/webhooks/${encodeURIComponent(h.id)}/deliveries`, 'deliveries', (x) => x.id, 500)
      .catch(() => ({ items: [] }));
    for (const x of items.filter((x) => ids.has(x.eventId))) {
      rows.push(el('li', {}, el('span', { class: `state ${x.state}` }, x.state), ` ${h.url} · ${x.attempts} attempt(s)`,
        x.lastStatus ? ` · HTTP ${x.lastStatus}` : '', x.lastError ? ` · ${x.lastError}` : ''));
    }
  }
  return rows.length ? el('ul', { class: 'states' }, rows) : el('p', { class: 'muted' }, 'No deliveries of these events yet.');
}

function zoomToRegion(id) {
  const r = state.built.get(id);
  if (r) state.map.fit(r.bounds);
}

function regionSaved(feature) {
  state.built.delete(String(feature.properties.id));
  const r = drawable(feature);
  const others = state.map.regions.filter((x) => x.id !== String(feature.properties.id));
  state.map.setRegions(r ? others.concat([r]) : others, state.map.clusters);
  select({ type: 'region', id: r.id });
  toastInfo(`Region “${r.id}” saved.`);
  loadViewport();
}

// MARK: Messages

let toastTimer = 0;
function toast(e) {
  const t = $('toast');
  const title = e instanceof ApiProblem ? `${e.title}${e.status ? ` (${e.status})` : ''}` : 'Error';
  t.replaceChildren(...[el('strong', {}, title), el('span', {}, ` ${e.detail || e.message}`),
    e.field ? el('code', {}, e.field) : null].filter(Boolean));
  t.className = 'toast error';
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 8000);
}

function toastInfo(text) {
  const t = $('toast');
  t.replaceChildren(el('span', {}, text));
  t.className = 'toast info';
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 3000);
}

// MARK: Boot

$('sign-in-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const key = $('api-key').value.trim();
  if (key) signIn(key);
});
const saved = sessionStorage.getItem(KEY);
if (saved) signIn(saved); else showSignIn();

