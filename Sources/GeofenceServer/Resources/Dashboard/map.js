// The map: a canvas in Web Mercator with pan (drag, arrow keys), zoom (wheel, pinch, + / −
// keys and buttons), a scale bar, regions or clusters of them, devices with their recent
// tracks, a replayed track, and event flashes. It draws what it is given; app.js decides what
// that is.
//
// The world wraps: the view pans past 180° without end and every copy of the world in view is
// drawn, so a region across the antimeridian is whole from either side.
//
// Speed: regions and clusters are drawn once per load into an off-screen layer covering the
// view and a quarter of it on each side (what app.js loads); a pan frame only copies that
// layer, and a zoom frame scales it until the zoom settles (LAYER_SETTLE_MS) and the layer is
// redrawn. While a pointer is down (a drag or a pinch) the layer is never redrawn and nothing
// is loaded (app.js waits for `interacting` to end): every frame of a drag is a copy of the
// layer, whatever the data; the new view is loaded and drawn once the pointer is released.
//
// Devices have a layer of their own: their live tracks (tracks.js) and dots, rebuilt when they
// change (at most every TRACK_REDRAW_MS), once a zoom settles, or when a pan has used half the
// layer's margin, and never during a drag; a rebuild is drawn beside the shown layer in slices
// of TRACK_SLICE segments, one a frame: a frame's cost depends on the view, not on how many
// devices or how much history the page holds. The selected device is drawn above, every frame.
import { project, unproject, metresPerUnit, niceLength, formatDistance, insideRings } from './geo.js';
import { trackBounds, traceTrack } from './tracks.js';

const TILE = 256;
const LAYER_PAD = 0.25;          // the layer's margin, a fraction of the view per side
const LAYER_SETTLE_MS = 90;      // redraw the layer this long after the last zoom step
const CROWDED = 150;             // more regions in view than this: lighter fills, thinner lines
const LABELLED = 40;             // device names are drawn while at most this many devices are in view
const TRACK_REDRAW_MS = 500;     // the devices layer follows moving devices at most twice a second
const TRACK_SLICE = 4000;        // track segments rasterised per frame while the devices layer is rebuilt (≈ 8 ms)
const DOT_CELL = 2;              // px: one dot per cell of this size and colour
const DOT_SLICE = 250;           // dots drawn per frame while the devices layer is rebuilt
const TILES_KEPT = 300;          // tile images held (the browser's HTTP cache holds more)
const TILE_RETRY_MS = 30000;     // a tile that failed is asked for again after this

// The hemisphere letter of a graticule line; none on the equator or the prime meridian.
function hemisphere(x, negative, positive, step) {
  if (Math.abs(x) < step / 2) return '';
  return x < 0 ? negative : positive;
}
export const COLORS = {
  background: '#eef2f6', grid: 'rgba(100, 116, 139, 0.18)', gridLabel: '#64748b',
  region: 'rgba(37, 99, 235, 0.20)', regionStroke: '#2563eb',
  occupied: 'rgba(22, 163, 74, 0.26)', occupiedStroke: '#15803d',
  selectedStroke: '#0f172a', device: '#e11d48', track: 'rgba(225, 29, 72, 0.55)', selectedTrack: '#9f1239',
  draft: 'rgba(245, 158, 11, 0.22)', draftStroke: '#d97706',
  enter: '#16a34a', exit: '#d97706', dwell: '#7c3aed',
  cluster: 'rgba(37, 99, 235, 0.82)', replay: '#0891b2', offline: '#94a3b8',
};

export class MapView {
  // `tiles`: the base map ({url, subdomains, maxZoom}) or null for none.
  constructor(canvas, { onViewChange, onClick, onPointerMove, tiles }) {
    this.canvas = canvas;
    // Opaque (every frame starts with the background) and desynchronized: the canvas's frames
    // reach the display without the page's compositor commit copying them, which cost the main
    // thread more per frame than the drawing itself (docs/performance.md, "What a frame costs the main thread").
    this.ctx = canvas.getContext('2d', { alpha: false, desynchronized: true });
    this.u = 0.5; this.v = 0.5; this.zoom = 2;
    this.regions = [];          // {id, rings: [Float64Array], bounds, occupied, circle?: [u, v, r]}
    this.clusters = [];         // {u, v, count, bounds: [u0, v0, u1, v1]}
    this.replay = null;         // {points: [[u, v]], at: [u, v] | null, events: [{u, v, kind}]}
    this.dataVersion = 0;       // bumped by setRegions(); the layer is redrawn when it changes
    this.layer = null;          // {canvas, ctx, u, v, zoom, width, height, version}
    this.layerTimer = 0;
    this.frameTimes = [];       // the last 240 frames' drawing times (ms), for the browser test
    this.devices = new Map();   // id -> {id, u, v, track: Track (tracks.js), online}
    this.showTracks = true;     // the tracks layer is drawn (the toolbar's Tracks button)
    this.tracksVersion = 0;     // bumped by tracksChanged(); the tracks layer follows it
    this.trackLayer = null;     // the devices layer (tracks and dots): like `layer`, plus {builtAt, selected, tracks, segments}
    this.spareTrackLayer = null; // the canvas the next rebuild draws into (the one shown before the last)
    this.trackBuild = null;     // a rebuild under way: {l, view, devices, next, segments, ms}
    this.trackTimer = 0;
    this.drawnDevices = [];     // the ids of the devices drawn by the last frame (browser test)
    this.flashes = [];          // {u, v, color, start}
    this.selected = null;       // {type: 'region'|'device', id}
    this.draft = null;          // {rings: [Float64Array], open: bool, points: [[u, v]]}
    this.onViewChange = onViewChange;
    this.onClick = onClick;
    this.onPointerMove = onPointerMove;
    this.tiles = tiles ? { ...tiles, images: new Map() } : null;
    this.pointers = new Map();
    this.frame = 0;
    this.lastPaint = 0;
    this.attach();
    this.resize(false);
    new ResizeObserver(() => this.resize()).observe(canvas);
  }

  // MARK: View

  get worldSize() { return TILE * Math.pow(2, this.zoom); }

  toScreen(u, v) {
    const W = this.worldSize;
    return [(u - this.u) * W + this.width / 2, (v - this.v) * W + this.height / 2];
  }

  fromScreen(x, y) {
    const W = this.worldSize;
    return [this.u + (x - this.width / 2) / W, this.v + (y - this.height / 2) / W];
  }

  // The view's [west, south, east, north] in degrees, grown by `pad` of its size per side. A
  // view across the antimeridian has west > east (as the server's bbox expects); a view wider
  // than the world is every longitude.
  bbox(pad = 0) {
    const [u0, v0] = this.fromScreen(-pad * this.width, -pad * this.height);
    const [u1, v1] = this.fromScreen((1 + pad) * this.width, (1 + pad) * this.height);
    const [, n] = unproject(0, Math.max(0, v0));
    const [, s] = unproject(0, Math.min(1, v1));
    if (u1 - u0 >= 1) return [-180, Math.max(-90, s), 180, Math.min(90, n)];
    const w = (u0 - Math.floor(u0)) * 360 - 180;
    let e = (u1 - Math.floor(u1)) * 360 - 180;
    if (e === -180 && u1 > u0) e = 180;
    return [w, Math.max(-90, s), e, Math.min(90, n)];
  }

  // The whole-world offsets (…, -1, 0, 1, …) whose copy of [from, to] in u reaches the view.
  copies(from = 0, to = 1) {
    const [u0] = this.fromScreen(0, 0), [u1] = this.fromScreen(this.width, 0);
    const out = [];
    for (let k = Math.floor(u0 - to); k <= Math.ceil(u1 - from); k++) {
      if (to + k >= u0 && from + k <= u1) out.push(k);
    }
    return out;
  }

  // u moved into [0, 1): the view wraps around the world.
  wrap() { this.u -= Math.floor(this.u); }

  setView(lon, lat, zoom) {
    [this.u, this.v] = project(lon, lat);
    this.zoom = Math.max(1, Math.min(20, zoom));
    this.wrap();
    this.changed();
  }

  // Fits [minU, minV, maxU, maxV] into the view with a margin, above the bottom `inset` pixels
  // (a bar over the map's foot).
  fit(b, maxZoom = 17, inset = 0) {
    const w = Math.max(b[2] - b[0], 1e-9), h = Math.max(b[3] - b[1], 1e-9);
    const free = Math.max(1, this.height - inset);
    const z = Math.log2(Math.min(this.width / (w * TILE), free / (h * TILE)) * 0.8);
    this.zoom = Math.max(1, Math.min(maxZoom, z));
    this.u = (b[0] + b[2]) / 2; this.v = (b[1] + b[3]) / 2 + inset / 2 / this.worldSize;
    this.wrap();
    this.changed();
  }

  center() { return unproject(this.u, this.v); }

  panBy(dx, dy) {
    const W = this.worldSize;
    this.u -= dx / W;
    this.v = Math.min(1, Math.max(0, this.v - dy / W));
    this.wrap();
    this.changed();
  }

  zoomAt(delta, x = this.width / 2, y = this.height / 2) {
    const [u, v] = this.fromScreen(x, y);
    this.zoom = Math.max(1, Math.min(20, this.zoom + delta));
    const W = this.worldSize;
    this.u = u - (x - this.width / 2) / W;
    this.v = Math.min(1, Math.max(0, v - (y - this.height / 2) / W));
    this.wrap();
    this.changed();
  }

  changed() {
    this.requestRender();
    if (this.onViewChange) this.onViewChange();
  }

  // Whether a pointer is down on the map (a drag or a pinch under way).
  get interacting() { return this.pointers.size > 0; }

  // Matches the canvas's pixels to its CSS size; `notify` is false during construction, when
  // the owner does not hold the map yet.
  resize(notify = true) {
    const r = this.canvas.getBoundingClientRect();
    // The observer's first call (made on observe()) finds the size unchanged: no new load.
    if (notify && Math.max(1, r.width) === this.width && Math.max(1, r.height) === this.height &&
        (window.devicePixelRatio || 1) === this.dpr) return;
    this.dpr = window.devicePixelRatio || 1;
    this.width = Math.max(1, r.width); this.height = Math.max(1, r.height);
    this.canvas.width = Math.round(this.width * this.dpr);
    this.canvas.height = Math.round(this.height * this.dpr);
    if (notify) this.changed(); else this.requestRender();
  }

  // MARK: Input

  attach() {
    const c = this.canvas;
    let down = null, moved = false, pinch = null;
    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, [e.offsetX, e.offsetY]);
      if (this.pointers.size === 1) { down = [e.offsetX, e.offsetY]; moved = false; }
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), zoom: this.zoom };
      }
    });
    c.addEventListener('pointermove', (e) => {
      if (this.onPointerMove) this.onPointerMove(e.offsetX, e.offsetY);
      const last = this.pointers.get(e.pointerId);
      if (!last) return;
      this.pointers.set(e.pointerId, [e.offsetX, e.offsetY]);
      if (pinch && this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        this.zoomAt(pinch.zoom + Math.log2(d / pinch.d) - this.zoom, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
        moved = true;
        return;
      }
      if (down && (moved || Math.hypot(e.offsetX - down[0], e.offsetY - down[1]) > 4)) {
        moved = true;
        c.classList.add('dragging');
        this.panBy(e.offsetX - last[0], e.offsetY - last[1]);
      }
    });
    const up = (e) => {
      const wasOnly = this.pointers.size === 1;
      this.pointers.delete(e.pointerId);
      if (this.pointers.size < 2) pinch = null;
      c.classList.remove('dragging');
      if (e.type === 'pointerup' && wasOnly && down && !moved && this.onClick) {
        const [u, v] = this.fromScreen(e.offsetX, e.offsetY);
        this.onClick(u, v, e.offsetX, e.offsetY, e);
      }
      if (this.pointers.size === 0) {
        // The drag is over: load its view and redraw the layer the drag only moved.
        if (down && moved) this.changed();
        down = null;
      }
    };
    c.addEventListener('pointerup', up);
    c.addEventListener('pointercancel', up);
    // A capture lost without a pointerup (the page hidden, a modal dialog opened under the
    // pointer) ends that pointer too: a pointer left in `pointers` would hold the map
    // "interacting", and nothing would load again.
    c.addEventListener('lostpointercapture', (e) => { if (this.pointers.has(e.pointerId)) up(e); });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const step = e.deltaMode === 1 ? e.deltaY / 3 : e.deltaY / 100;
      this.zoomAt(-Math.max(-1, Math.min(1, step)) * 0.5, e.offsetX, e.offsetY);
    }, { passive: false });
    c.addEventListener('keydown', (e) => {
      const pan = e.shiftKey ? 0.4 : 0.12;
      const keys = {
        ArrowLeft: () => this.panBy(this.width * pan, 0), ArrowRight: () => this.panBy(-this.width * pan, 0),
        ArrowUp: () => this.panBy(0, this.height * pan), ArrowDown: () => this.panBy(0, -this.height * pan),
        '+': () => this.zoomAt(1), '=': () => this.zoomAt(1), '-': () => this.zoomAt(-1), _: () => this.zoomAt(-1),
      };
      if (keys[e.key] && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); keys[e.key](); }
    });
  }

  // MARK: Data

  // Replaces the regions and clusters drawn (the layer is redrawn on the next frame).
  setRegions(regions, clusters = []) {
    this.regions = regions;
    this.clusters = clusters;
    this.dataVersion++;
    this.requestRender();
  }

  // Redraws the layer on the next frame (a region's state or selection changed).
  invalidate() { this.dataVersion++; this.requestRender(); }

  // The copy of unit coordinate u nearest the view's centre.
  near(u) { return u - Math.round(u - this.u); }

  // MARK: Hit testing

  // The device within 12 px of (x, y), else a cluster under it, else the smallest region
  // containing it.
  hitTest(x, y) {
    let best = null, bestD = 12;
    for (const d of this.replay ? [] : this.devices.values()) {
      const [dx, dy] = this.toScreen(this.near(d.u), d.v);
      const dist = Math.hypot(dx - x, dy - y);
      if (dist < bestD) { bestD = dist; best = { type: 'device', id: d.id }; }
    }
    if (best) return best;
    for (const c of this.shownClusters || []) {
      const [cx, cy] = this.toScreen(this.near(c.u), c.v);
      if (Math.hypot(cx - x, cy - y) <= clusterRadius(c.count)) return { type: 'cluster', bounds: c.bounds, count: c.count };
    }
    const [pu, v] = this.fromScreen(x, y);
    let area = Infinity;
    const W = this.worldSize;
    for (const r of this.regions) {
      const b = r.bounds;
      const u = pu - Math.floor(pu - b[0]);   // the copy of the point at or east of the region's west edge
      if (u < b[0] || u > b[2] || v < b[1] || v > b[3]) continue;
      const a = (b[2] - b[0]) * (b[3] - b[1]);
      // Regions drawn as dots are hit within a few pixels of the dot.
      const tiny = (b[2] - b[0]) * W < 4 && (b[3] - b[1]) * W < 4;
      if (a < area && (tiny || insideRings(u, v, r.rings))) { area = a; best = { type: 'region', id: r.id }; }
    }
    return best;
  }

  // MARK: Drawing

  requestRender() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  render() {
    const t0 = performance.now();
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, this.width, this.height);
    if (this.tiles) this.drawTiles(ctx);
    this.drawGrid(ctx);
    this.drawLayer(ctx);
    this.drawSelected(ctx);
    this.drawDraft(ctx);
    if (this.replay) {
      // The replay view: that device's track, events and position on top of everything, and
      // nothing of the other devices.
      this.drawnDevices = [];
      this.drawReplay(ctx);
    } else {
      this.drawDeviceLayer(ctx);
      this.drawnDevices = this.trackLayer ? this.trackLayer.drawn : [];
      this.drawSelectedDevice(ctx);
      this.drawFlashes(ctx);
    }
    this.updateScaleBar();
    this.lastPaint = performance.now() - t0;
    this.frameTimes.push(this.lastPaint);
    this.framesDrawn = (this.framesDrawn || 0) + 1;
    if (this.frameTimes.length > 240) this.frameTimes.shift();
    if (this.flashes.length) this.requestRender();
  }

  drawGrid(ctx) {
    const [u0, v0] = this.fromScreen(0, 0), [u1, v1] = this.fromScreen(this.width, this.height);
    const w = u0 * 360 - 180, e = u1 * 360 - 180;
    const [, n] = unproject(0, Math.max(0, v0)), [, s] = unproject(0, Math.min(1, v1));
    const span = Math.max(e - w, 1e-6);
    const step = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45]
      .find((x) => span / x <= 8) || 90;
    const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    ctx.strokeStyle = COLORS.grid; ctx.lineWidth = 1;
    ctx.fillStyle = COLORS.gridLabel; ctx.font = '11px system-ui, sans-serif';
    ctx.beginPath();
    for (let lon = Math.ceil(w / step) * step; lon <= e; lon += step) {
      const [x] = this.toScreen((lon + 180) / 360, 0);
      const shown = ((lon + 540) % 360 + 360) % 360 - 180;   // the longitude of this copy of the world
      ctx.moveTo(Math.round(x) + 0.5, 0); ctx.lineTo(Math.round(x) + 0.5, this.height);
      ctx.fillText(`${Math.abs(shown).toFixed(digits)}°${hemisphere(shown, 'W', 'E', step)}`, x + 3, this.height - 6);
    }
    for (let lat = Math.ceil(s / step) * step; lat <= n; lat += step) {
      const [, y] = this.toScreen(0, project(0, lat)[1]);
      ctx.moveTo(0, Math.round(y) + 0.5); ctx.lineTo(this.width, Math.round(y) + 0.5);
      if (y > 112) ctx.fillText(`${Math.abs(lat).toFixed(digits)}°${hemisphere(lat, 'S', 'N', step)}`, 4, y - 3);
    }
    ctx.stroke();
  }

  // The regions layer: redrawn when the data changed or once the zoom settles (until then the
  // layer drawn at another zoom is scaled). A pan never redraws it: the layer covers what
  // app.js loaded (the view and a quarter of it on each side), so past its edge there is
  // nothing to draw until the next load, which brings new data and a new layer.
  drawLayer(ctx) {
    const L = this.layer;
    const W = this.worldSize;
    const stale = !L || L.version !== this.dataVersion || L.width !== this.width || L.height !== this.height;
    if (L && this.interacting) {
      // During a drag or pinch the layer is only moved and scaled; release redraws it.
    } else if (stale) {
      this.buildLayer();
    } else if (L.zoom !== this.zoom) {
      clearTimeout(this.layerTimer);
      this.layerTimer = setTimeout(() => { if (this.layer) this.layer.version = -1; this.requestRender(); }, LAYER_SETTLE_MS);
    }
    this.blit(ctx, this.layer);
  }

  // Copies layer `l` into the view: moved by the pan since it was drawn, scaled by the zoom.
  blit(ctx, l) {
    const W = this.worldSize;
    const scale = Math.pow(2, this.zoom - l.zoom);
    const lw = l.canvas.width / this.dpr, lh = l.canvas.height / this.dpr;
    const cx = this.width / 2 + (this.near(l.u) - this.u) * W, cy = this.height / 2 + (l.v - this.v) * W;
    ctx.drawImage(l.canvas, cx - (lw * scale) / 2, cy - (lh * scale) / 2, lw * scale, lh * scale);
  }

  // An off-screen canvas (`l`'s, reused, or a new one) covering the view and LAYER_PAD of it
  // on each side, cleared, positioned at the view; answers it and the view to draw it in.
  prepareLayer(l) {
    const pw = this.width * (1 + 2 * LAYER_PAD), ph = this.height * (1 + 2 * LAYER_PAD);
    if (!l) {
      const canvas = document.createElement('canvas');
      l = { canvas, ctx: canvas.getContext('2d') };
    }
    const w = Math.round(pw * this.dpr), h = Math.round(ph * this.dpr);
    if (l.canvas.width !== w || l.canvas.height !== h) { l.canvas.width = w; l.canvas.height = h; }
    Object.assign(l, { u: this.u, v: this.v, zoom: this.zoom, width: this.width, height: this.height });
    l.ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    l.ctx.clearRect(0, 0, pw, ph);
    return [l, { u: this.u, v: this.v, W: this.worldSize, ox: pw / 2, oy: ph / 2, width: pw, height: ph }];
  }

  buildLayer() {
    const t0 = performance.now();
    const [l, view] = this.prepareLayer(this.layer);
    l.version = this.dataVersion;
    this.layer = l;
    this.drawRegions(l.ctx, view);
    this.drawClusters(l.ctx, view);
    this.lastLayerMs = performance.now() - t0;
  }

  // MARK: Tracks

  // Marks the tracks changed (a device moved, the selection changed).
  tracksChanged() { this.tracksVersion++; this.requestRender(); }

  get selectedDevice() { return this.selected && this.selected.type === 'device' ? this.selected.id : null; }

  // The devices layer: every track (unless hidden) and every dot but the selected device's.
  // A rebuild is drawn into a second canvas over as many frames as it needs (stepDeviceLayer)
  // while the layer built before is shown; a drag pauses it.
  drawDeviceLayer(ctx) {
    if (!this.interacting) {
      if (this.trackBuild) this.stepDeviceLayer();
      else this.checkDeviceLayer();
    }
    if (this.trackLayer) this.blit(ctx, this.trackLayer);
  }

  // Starts a rebuild of the devices layer when it no longer shows the view, the selection or
  // the Tracks button's state, or when devices moved (at most every TRACK_REDRAW_MS, and once
  // a zoom has settled).
  checkDeviceLayer() {
    const L = this.trackLayer, W = this.worldSize;
    const fresh = L && L.width === this.width && L.height === this.height && L.selected === this.selectedDevice && !L.force &&
      L.tracks === this.showTracks &&
      Math.abs(this.near(L.u) - this.u) * W <= (this.width * LAYER_PAD) / 2 && Math.abs(L.v - this.v) * W <= (this.height * LAYER_PAD) / 2;
    const due = L && performance.now() - L.builtAt >= TRACK_REDRAW_MS;
    if (!fresh || (L.version !== this.tracksVersion && due && L.zoom === this.zoom)) {
      this.startDeviceLayer();
    } else if (L.zoom !== this.zoom) {
      clearTimeout(this.trackTimer);
      this.trackTimer = setTimeout(() => {
        this.trackTimer = 0;
        if (this.trackLayer) this.trackLayer.force = true;
        this.requestRender();
      }, LAYER_SETTLE_MS);
    } else if (L.version !== this.tracksVersion && !this.trackTimer) {
      this.trackTimer = setTimeout(() => { this.trackTimer = 0; this.requestRender(); }, TRACK_REDRAW_MS);
    }
  }

  // A rebuild of the devices layer into the spare canvas, of the devices as they are now; its
  // first slice is drawn at once (a small layer, or one far out where tracks are points, is
  // whole in this frame).
  startDeviceLayer() {
    const [l, view] = this.prepareLayer(this.spareTrackLayer);
    Object.assign(l, { version: this.tracksVersion, selected: this.selectedDevice, tracks: this.showTracks, force: false });
    this.spareTrackLayer = null;
    this.trackBuild = { l, view, devices: this.showTracks ? [...this.devices.values()] : [], next: 0, segments: 0, ms: 0 };
    this.stepDeviceLayer();
  }

  // One slice of the rebuild: the next devices' tracks up to TRACK_SLICE segments in one path,
  // stroked and rasterised now (rasterising is the dear part: about 2 µs a segment in
  // software, so a whole 35,000-segment layer in one frame cost 70–80 ms); after the last
  // slice the dots, and the new layer replaces the shown one.
  stepDeviceLayer() {
    const t0 = performance.now(), b = this.trackBuild, { l, view } = b;
    const path = new Path2D();
    let segments = 0;
    while (b.next < b.devices.length && segments < TRACK_SLICE) {
      const d = b.devices[b.next++];
      if (d.track.length < 2 || d.id === l.selected) continue;
      for (const k of this.offsets(trackBounds(d.track), view)) segments += traceTrack(path, d.track, view, k);
    }
    if (segments) {
      // One pixel wide: a hairline, which the rasteriser draws directly, where a wider stroke
      // with round joins is first turned into a polygon (for 35,000 segments, hundreds of ms).
      l.ctx.lineJoin = 'miter'; l.ctx.strokeStyle = COLORS.track; l.ctx.lineWidth = 1;
      l.ctx.stroke(path);
      this.rasterise(l.canvas);
    }
    b.segments += segments;
    if (b.next >= b.devices.length && !b.dots) b.dots = { shown: this.dotsInView(view), next: 0, cells: new Set() };
    if (b.dots && !segments && b.dots.next < b.dots.shown.length) {
      b.dots.next = this.drawDotSlice(l.ctx, b.dots, l.selected);
      this.rasterise(l.canvas);
    }
    if (!b.dots || b.dots.next < b.dots.shown.length) {
      b.ms += performance.now() - t0;
      this.requestRender();
      return;
    }
    this.drawLabels(l.ctx, b.dots.shown);
    l.drawn = b.dots.shown.map(([d]) => d.id);
    l.segments = b.segments;
    l.builtAt = performance.now();
    this.lastTrackLayerMs = b.ms + (l.builtAt - t0);
    this.spareTrackLayer = this.trackLayer;
    this.trackLayer = l;
    this.trackBuild = null;
    this.requestRender();   // the next frame asks whether the view or the devices moved meanwhile
  }

  // Makes the canvas rasterise what was drawn into it so far (a canvas records its drawing and
  // rasterises it when first copied or read): reading one pixel is that first read.
  rasterise(canvas) {
    canvas.getContext('2d').getImageData(0, 0, 1, 1);
  }

  // The selected device's track, above the others, drawn every frame (one track: at most
  // TRACK_POINTS fixes).
  drawSelectedTrack(ctx) {
    const d = this.selectedDevice !== null && this.devices.get(this.selectedDevice);
    if (!d || d.track.length < 2 || !this.showTracks) return;
    const view = this.screenView(), path = new Path2D();
    for (const k of this.offsets(trackBounds(d.track), view)) traceTrack(path, d.track, view, k);
    ctx.lineJoin = 'round'; ctx.strokeStyle = COLORS.selectedTrack; ctx.lineWidth = 3;
    ctx.stroke(path);
  }

  // Traces `rings` into `path`, shifted by `k` worlds, dropping vertices closer than half a
  // pixel to the last one kept (a zoomed-out polygon of 10,000 vertices becomes a few dozen
  // segments).
  tracePath(path, rings, view, k = 0) {
    const W = view.W, ox = view.ox - (view.u - k) * W, oy = view.oy - view.v * W;
    for (const r of rings) {
      let lx = ox + r[0] * W, ly = oy + r[1] * W;
      path.moveTo(lx, ly);
      for (let i = 2; i < r.length; i += 2) {
        const x = ox + r[i] * W, y = oy + r[i + 1] * W;
        if (Math.abs(x - lx) < 0.5 && Math.abs(y - ly) < 0.5) continue;
        path.lineTo(x, y); lx = x; ly = y;
      }
      path.closePath();
    }
  }

  // The main canvas's view, for drawing outside the layer.
  screenView() {
    return { u: this.u, v: this.v, W: this.worldSize, ox: this.width / 2, oy: this.height / 2, width: this.width, height: this.height };
  }

  // The world offsets at which bounds [u0, v0, u1, v1] reach `view`.
  offsets(b, view) {
    const half = view.width / 2 / view.W, vh = view.height / 2 / view.W;
    if (b[3] < view.v - vh || b[1] > view.v + vh) return [];
    const out = [];
    for (let k = Math.floor(view.u - half - b[2]); k <= Math.ceil(view.u + half - b[0]); k++) {
      if (b[2] + k >= view.u - half && b[0] + k <= view.u + half) out.push(k);
    }
    return out;
  }

  // Every region in one path per colour (non-zero fill: overlapping regions do not darken into
  // a block, their outlines stay visible); regions with holes on their own (even-odd); regions
  // under 3 px as dots. Circles are arcs, not 96-gons.
  drawRegions(ctx, view) {
    const W = view.W;
    const plain = new Path2D(), occupied = new Path2D(), dots = { plain: [], occupied: [] }, holed = [];
    let shown = 0;
    for (const r of this.regions) {
      const b = r.bounds;
      for (const k of this.offsets(b, view)) {
        shown++;
        if ((b[2] - b[0]) * W < 3 && (b[3] - b[1]) * W < 3) {
          (r.occupied ? dots.occupied : dots.plain).push([(b[0] + b[2]) / 2 + k, (b[1] + b[3]) / 2]);
          continue;
        }
        if (r.rings.length > 1) { holed.push([r, k]); continue; }
        const path = r.occupied ? occupied : plain;
        if (r.circle) {
          const [cu, cv, ru] = r.circle;
          const x = view.ox + (cu + k - view.u) * W, y = view.oy + (cv - view.v) * W;
          path.moveTo(x + ru * W, y);
          path.arc(x, y, ru * W, 0, 2 * Math.PI);
        } else {
          this.tracePath(path, r.rings, view, k);
        }
      }
    }
    const crowded = shown > CROWDED;
    ctx.lineWidth = crowded ? 0.9 : 1.25;
    ctx.globalAlpha = crowded ? 0.6 : 1;
    for (const [path, fill, stroke] of [[plain, COLORS.region, COLORS.regionStroke], [occupied, COLORS.occupied, COLORS.occupiedStroke]]) {
      ctx.fillStyle = fill; ctx.strokeStyle = stroke;
      ctx.fill(path, 'nonzero');
      ctx.stroke(path);
    }
    for (const [r, k] of holed) {
      const path = new Path2D();
      this.tracePath(path, r.rings, view, k);
      ctx.fillStyle = r.occupied ? COLORS.occupied : COLORS.region;
      ctx.strokeStyle = r.occupied ? COLORS.occupiedStroke : COLORS.regionStroke;
      ctx.fill(path, 'evenodd');
      ctx.stroke(path);
    }
    ctx.globalAlpha = 1;
    for (const [list, color] of [[dots.plain, COLORS.regionStroke], [dots.occupied, COLORS.occupiedStroke]]) {
      ctx.fillStyle = color;
      for (const [u, v] of list) {
        const x = view.ox + (u - view.u) * W, y = view.oy + (v - view.v) * W;
        ctx.fillRect(x - 1, y - 1, 2.5, 2.5);
      }
    }
  }

  // Clusters: a disc sized by the count's logarithm, the count inside; discs that would
  // overlap at this zoom are merged into one (their counts added), and each is drawn once, in
  // the copy of the world nearest the view's centre (at zoom 1 the world repeats across the
  // view, and a cluster shown twice would count its regions twice).
  drawClusters(ctx, view) {
    this.shownClusters = mergeOverlapping(this.clusters.map((c) => ({ ...c, u: this.near(c.u) })), view.W);
    if (!this.shownClusters.length) return;
    ctx.font = '600 11px system-ui, sans-serif';
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    for (const c of this.shownClusters) {
      const x = view.ox + (c.u - view.u) * view.W, y = view.oy + (c.v - view.v) * view.W;
      const r = clusterRadius(c.count);
      ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fillStyle = COLORS.cluster; ctx.fill();
      ctx.lineWidth = 2; ctx.strokeStyle = '#ffffff'; ctx.stroke();
      ctx.fillStyle = '#ffffff';
      ctx.fillText(formatCount(c.count), x, y + 0.5);
    }
    ctx.textAlign = 'start'; ctx.textBaseline = 'alphabetic';
  }

  drawSelected(ctx) {
    const s = this.selected;
    if (!s || s.type !== 'region') return;
    const r = this.regions.find((x) => x.id === s.id) || this.selectedRegion;
    if (!r) return;
    const view = this.screenView();
    const path = new Path2D();
    for (const k of this.offsets(r.bounds, view)) this.tracePath(path, r.rings, view, k);
    ctx.setLineDash([6, 4]); ctx.lineWidth = 2.5; ctx.strokeStyle = COLORS.selectedStroke;
    ctx.stroke(path); ctx.setLineDash([]);
  }

  drawDraft(ctx) {
    const d = this.draft;
    if (!d) return;
    const view = this.screenView();
    const path = new Path2D();
    if (d.rings) this.tracePath(path, d.rings, view, Math.round(this.u - (d.rings[0][0] || this.u)));
    ctx.fillStyle = COLORS.draft; ctx.strokeStyle = COLORS.draftStroke; ctx.lineWidth = 2;
    if (d.rings && !d.open) ctx.fill(path, 'evenodd');
    if (!d.open) ctx.stroke(path);
    if (d.open && d.points.length) {
      ctx.beginPath();
      d.points.forEach(([u, v], i) => { const [x, y] = this.toScreen(this.near(u), v); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      if (d.cursor) { const [x, y] = this.toScreen(this.near(d.cursor[0]), d.cursor[1]); ctx.lineTo(x, y); }
      ctx.stroke();
    }
    ctx.fillStyle = COLORS.draftStroke;
    for (const [u, v] of d.points || []) {
      const [x, y] = this.toScreen(this.near(u), v);
      ctx.fillRect(x - 4, y - 4, 8, 8);
    }
  }

  // A replayed track: the path, its events as coloured rings, the device where the slider is.
  drawReplay(ctx) {
    const r = this.replay;
    if (!r || !r.points.length) return;
    const shift = this.near(r.points[0][0]) - r.points[0][0];
    ctx.beginPath();
    r.points.forEach(([u, v], i) => { const [x, y] = this.toScreen(u + shift, v); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
    ctx.strokeStyle = COLORS.replay; ctx.lineWidth = 3; ctx.lineJoin = 'round'; ctx.stroke();
    for (const e of r.events) {
      const [x, y] = this.toScreen(e.u + shift, e.v);
      ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI);
      ctx.lineWidth = 3; ctx.strokeStyle = COLORS[e.kind] || COLORS.device; ctx.stroke();
    }
    if (r.at) {
      const [x, y] = this.toScreen(r.at[0] + shift, r.at[1]);
      ctx.beginPath(); ctx.arc(x, y, 8, 0, 2 * Math.PI);
      ctx.fillStyle = COLORS.replay; ctx.fill(); ctx.lineWidth = 3; ctx.strokeStyle = '#ffffff'; ctx.stroke();
    }
  }

  // The devices within 20 px of `view` (a layer's): [device, x, y] each.
  dotsInView(view) {
    const W = view.W, shown = [];
    for (const d of this.devices.values()) {
      const x = view.ox + (this.near(d.u) - view.u) * W, y = view.oy + (d.v - view.v) * W;
      if (x < -20 || y < -20 || x > view.width + 20 || y > view.height + 20) continue;
      shown.push([d, x, y]);
    }
    return shown;
  }

  // The next DOT_SLICE dots of `shown` from `next` on, all but `skip`'s, one path per colour
  // (offline grey); answers where the next slice starts. A dot within DOT_CELL px of one
  // already drawn (`cells`, kept across a rebuild's slices) is skipped (far out, a fleet shares
  // a few pixels, and hundreds of overlapping circles cost far more to fill than they show).
  drawDotSlice(ctx, { shown, next, cells }, skip) {
    const dots = { online: new Path2D(), offline: new Path2D() };
    let drawn = 0, i = next;
    for (; i < shown.length && drawn < DOT_SLICE; i++) {
      const [d, x, y] = shown[i];
      if (d.id === skip) continue;
      const online = d.online !== false;
      const cell = (online ? 1e9 : 0) + Math.round(x / DOT_CELL + 1e4) * 1e5 + Math.round(y / DOT_CELL + 1e4);
      if (cells.has(cell)) continue;
      cells.add(cell);
      const path = online ? dots.online : dots.offline;
      path.moveTo(x + 7, y);
      path.arc(x, y, 7, 0, 2 * Math.PI);
      drawn++;
    }
    ctx.lineWidth = 2; ctx.strokeStyle = '#ffffff';
    for (const [path, color] of [[dots.offline, COLORS.offline], [dots.online, COLORS.device]]) {
      ctx.fillStyle = color; ctx.fill(path); ctx.stroke(path);
    }
    return i;
  }

  // Device names, while at most LABELLED devices are in the view and the zoom is over 11.
  drawLabels(ctx, shown) {
    if (this.zoom <= 11 || shown.length > LABELLED) return;
    ctx.font = '600 12px system-ui, sans-serif';
    for (const [d, x, y] of shown) {
      const label = d.id.length > 24 ? `${d.id.slice(0, 23)}…` : d.id;
      ctx.lineWidth = 3; ctx.strokeStyle = 'rgba(255,255,255,0.9)';
      ctx.strokeText(label, x + 11, y + 4);
      ctx.fillStyle = '#0f172a'; ctx.fillText(label, x + 11, y + 4);
    }
  }

  // The selected device, every frame, above the layer: its track, then its dot.
  drawSelectedDevice(ctx) {
    this.drawSelectedTrack(ctx);
    const d = this.selectedDevice !== null && this.devices.get(this.selectedDevice);
    if (!d) return;
    const [x, y] = this.toScreen(this.near(d.u), d.v);
    ctx.beginPath(); ctx.arc(x, y, 10, 0, 2 * Math.PI);
    ctx.fillStyle = d.online === false ? COLORS.offline : COLORS.device;
    ctx.fill(); ctx.lineWidth = 3; ctx.strokeStyle = '#ffffff'; ctx.stroke();
  }

  flash(u, v, color) {
    if (this.flashes.length >= 64) this.flashes.shift();   // a burst of events: the newest 64
    this.flashes.push({ u, v, color, start: performance.now() });
    this.requestRender();
  }

  drawFlashes(ctx) {
    const now = performance.now();
    this.flashes = this.flashes.filter((f) => now - f.start < 1800);
    for (const f of this.flashes) {
      const t = (now - f.start) / 1800;
      const [x, y] = this.toScreen(this.near(f.u), f.v);
      ctx.beginPath(); ctx.arc(x, y, 10 + 34 * t, 0, 2 * Math.PI);
      ctx.globalAlpha = 1 - t; ctx.lineWidth = 3; ctx.strokeStyle = f.color; ctx.stroke();
      ctx.globalAlpha = 1;
    }
  }

  // The base map: 256-pixel XYZ tiles of the configured template at the zoom nearest the
  // view's (at most the server's highest, scaled beyond it), the world's columns repeating
  // east and west. A tile's host is fixed by its x and y (`{s}`), so the browser's cache
  // serves it again. A tile that fails to load leaves the background and the grid (drawn over
  // the tiles) in its place, and is asked for again after TILE_RETRY_MS.
  drawTiles(ctx) {
    const t = this.tiles;
    const z = Math.max(0, Math.min(t.maxZoom, Math.round(this.zoom)));
    const n = Math.pow(2, z), size = this.worldSize / n;
    const [u0, v0] = this.fromScreen(0, 0), [u1, v1] = this.fromScreen(this.width, this.height);
    const now = performance.now();
    for (let ty = Math.max(0, Math.floor(v0 * n)); ty <= Math.min(n - 1, Math.floor(v1 * n)); ty++) {
      for (let col = Math.floor(u0 * n); col <= Math.floor(u1 * n); col++) {
        const tx = ((col % n) + n) % n;                      // the world wraps: tile columns repeat
        const img = this.tileImage(z, tx, ty, now);
        if (img.complete && img.naturalWidth) {
          const [x, y] = this.toScreen(col / n, ty / n);
          ctx.drawImage(img, Math.round(x), Math.round(y), Math.ceil(size), Math.ceil(size));
        }
      }
    }
  }

  tileImage(z, x, y, now) {
    const t = this.tiles, key = `${z}/${x}/${y}`;
    let img = t.images.get(key);
    if (img && img.failedAt && now - img.failedAt > TILE_RETRY_MS) { t.images.delete(key); img = null; }
    if (!img) {
      if (t.images.size > TILES_KEPT) t.images.delete(t.images.keys().next().value);
      img = new Image();
      img.onload = () => this.requestRender();
      img.onerror = () => { img.failedAt = performance.now(); };
      // The page sends no Referer anywhere, but tile servers' policies (OpenStreetMap's) ask
      // for one: the tiles carry the dashboard's origin, never a path.
      img.referrerPolicy = 'strict-origin';
      const s = t.subdomains.length ? t.subdomains[(x + y) % t.subdomains.length] : '';
      img.src = t.url.replace('{z}', z).replace('{x}', x).replace('{y}', y).replace('{s}', s);
      t.images.set(key, img);
    }
    return img;
  }

  updateScaleBar() {
    const bar = document.getElementById('scale-bar'), label = document.getElementById('scale-label');
    if (!bar) return;
    const [, lat] = this.center();
    const metresPerPixel = metresPerUnit(lat) / this.worldSize;
    const m = niceLength(metresPerPixel * 120);
    // Written only when changed: a write invalidates the page's style and layout each frame.
    const width = `${Math.round(m / metresPerPixel)}px`, text = formatDistance(m);
    if (this.scaleShown !== width + text) {
      this.scaleShown = width + text;
      bar.style.width = width;
      label.textContent = text;
    }
  }
}

// A cluster's radius in pixels: 11 for one region, about 30 for 100,000.
export function clusterRadius(count) { return 11 + 4 * Math.log10(Math.max(1, count)); }

// Clusters whose discs (clusterRadius, `W` pixels per unit) would overlap, merged: the
// largest first, each later one folded into the first kept disc it touches (counts added,
// bounds joined, the centre weighted by count). O(n × kept), n at most the server's page.
export function mergeOverlapping(clusters, W) {
  const kept = [];
  for (const c of clusters.slice().sort((a, b) => b.count - a.count)) {
    const into = kept.find((k) => Math.hypot((k.u - c.u) * W, (k.v - c.v) * W) < clusterRadius(k.count) + clusterRadius(c.count) + 2);
    if (!into) { kept.push({ ...c, bounds: c.bounds.slice() }); continue; }
    const n = into.count + c.count;
    into.u = (into.u * into.count + c.u * c.count) / n;
    into.v = (into.v * into.count + c.v * c.count) / n;
    into.count = n;
    into.bounds = [Math.min(into.bounds[0], c.bounds[0]), Math.min(into.bounds[1], c.bounds[1]),
      Math.max(into.bounds[2], c.bounds[2]), Math.max(into.bounds[3], c.bounds[3])];
  }
  return kept;
}

// 950, 1.2k, 35k, 1.1M.
export function formatCount(n) {
  if (n < 1000) return String(n);
  if (n < 10000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1e6) return `${Math.round(n / 1000)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}
