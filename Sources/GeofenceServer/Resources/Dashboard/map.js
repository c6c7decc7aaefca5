// The map: a canvas in Web Mercator with pan (drag, arrow keys), zoom (wheel, pinch, + / −
// keys and buttons), a scale bar, regions, devices with their recent tracks, and event
// flashes. It draws what it is given; app.js decides what that is.
import { project, unproject, metresPerUnit, niceLength, formatDistance, insideRings } from './geo.js';

const TILE = 256;

// The hemisphere letter of a graticule line; none on the equator or the prime meridian.
function hemisphere(x, negative, positive, step) {
  if (Math.abs(x) < step / 2) return '';
  return x < 0 ? negative : positive;
}
export const COLORS = {
  background: '#eef2f6', grid: 'rgba(100, 116, 139, 0.18)', gridLabel: '#64748b',
  region: 'rgba(37, 99, 235, 0.20)', regionStroke: '#2563eb',
  occupied: 'rgba(22, 163, 74, 0.26)', occupiedStroke: '#15803d',
  selectedStroke: '#0f172a', device: '#e11d48', track: 'rgba(225, 29, 72, 0.55)',
  draft: 'rgba(245, 158, 11, 0.22)', draftStroke: '#d97706',
  enter: '#16a34a', exit: '#d97706', dwell: '#7c3aed',
};

export class MapView {
  constructor(canvas, { onViewChange, onClick, onPointerMove, tileURL }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.u = 0.5; this.v = 0.5; this.zoom = 2;
    this.regions = [];          // {id, rings: [Float64Array], bounds, occupied, holes}
    this.devices = new Map();   // id -> {id, u, v, track: [[u, v]], selected}
    this.flashes = [];          // {u, v, color, start}
    this.selected = null;       // {type: 'region'|'device', id}
    this.draft = null;          // {rings: [Float64Array], open: bool, points: [[u, v]]}
    this.onViewChange = onViewChange;
    this.onClick = onClick;
    this.onPointerMove = onPointerMove;
    this.tileURL = tileURL;
    this.tiles = new Map();
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

  // The view's [west, south, east, north] in degrees, grown by `pad` of its size per side.
  bbox(pad = 0) {
    const [u0, v0] = this.fromScreen(-pad * this.width, -pad * this.height);
    const [u1, v1] = this.fromScreen((1 + pad) * this.width, (1 + pad) * this.height);
    const [w, n] = unproject(Math.max(0, u0), Math.max(0, v0));
    const [e, s] = unproject(Math.min(1, u1), Math.min(1, v1));
    return [Math.max(-180, w), Math.max(-90, s), Math.min(180, e), Math.min(90, n)];
  }

  setView(lon, lat, zoom) {
    [this.u, this.v] = project(lon, lat);
    this.zoom = Math.max(1, Math.min(20, zoom));
    this.changed();
  }

  // Fits [minU, minV, maxU, maxV] into the view with a margin.
  fit(b, maxZoom = 17) {
    const w = Math.max(b[2] - b[0], 1e-9), h = Math.max(b[3] - b[1], 1e-9);
    const z = Math.log2(Math.min(this.width / (w * TILE), this.height / (h * TILE)) * 0.8);
    this.u = (b[0] + b[2]) / 2; this.v = (b[1] + b[3]) / 2;
    this.zoom = Math.max(1, Math.min(maxZoom, z));
    this.changed();
  }

  center() { return unproject(this.u, this.v); }

  panBy(dx, dy) {
    const W = this.worldSize;
    this.u = Math.min(1, Math.max(0, this.u - dx / W));
    this.v = Math.min(1, Math.max(0, this.v - dy / W));
    this.changed();
  }

  zoomAt(delta, x = this.width / 2, y = this.height / 2) {
    const [u, v] = this.fromScreen(x, y);
    this.zoom = Math.max(1, Math.min(20, this.zoom + delta));
    const W = this.worldSize;
    this.u = u - (x - this.width / 2) / W;
    this.v = v - (y - this.height / 2) / W;
    this.changed();
  }

  changed() {
    this.requestRender();
    if (this.onViewChange) this.onViewChange();
  }

  // Matches the canvas's pixels to its CSS size; `notify` is false during construction, when
  // the owner does not hold the map yet.
  resize(notify = true) {
    const r = this.canvas.getBoundingClientRect();
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
      if (this.pointers.size === 0) down = null;
    };
    c.addEventListener('pointerup', up);
    c.addEventListener('pointercancel', up);
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

  // MARK: Hit testing

  // The device within 12 px of (x, y), else the smallest region containing it.
  hitTest(x, y) {
    let best = null, bestD = 12;
    for (const d of this.devices.values()) {
      const [dx, dy] = this.toScreen(d.u, d.v);
      const dist = Math.hypot(dx - x, dy - y);
      if (dist < bestD) { bestD = dist; best = { type: 'device', id: d.id }; }
    }
    if (best) return best;
    const [u, v] = this.fromScreen(x, y);
    let area = Infinity;
    for (const r of this.regions) {
      const b = r.bounds;
      if (u < b[0] || u > b[2] || v < b[1] || v > b[3]) continue;
      const a = (b[2] - b[0]) * (b[3] - b[1]);
      const W = this.worldSize;
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
    if (this.tileURL) this.drawTiles(ctx);
    this.drawGrid(ctx);
    this.drawRegions(ctx);
    this.drawDraft(ctx);
    this.drawDevices(ctx);
    this.drawFlashes(ctx);
    this.updateScaleBar();
    this.lastPaint = performance.now() - t0;
    if (this.flashes.length) this.requestRender();
  }

  drawGrid(ctx) {
    const [w, s, e, n] = this.bbox();
    const span = Math.max(e - w, 1e-6);
    const step = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45]
      .find((x) => span / x <= 8) || 90;
    const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    ctx.strokeStyle = COLORS.grid; ctx.lineWidth = 1;
    ctx.fillStyle = COLORS.gridLabel; ctx.font = '11px system-ui, sans-serif';
    ctx.beginPath();
    for (let lon = Math.ceil(w / step) * step; lon <= e; lon += step) {
      const [x] = this.toScreen(project(lon, 0)[0], 0);
      ctx.moveTo(Math.round(x) + 0.5, 0); ctx.lineTo(Math.round(x) + 0.5, this.height);
      ctx.fillText(`${Math.abs(lon).toFixed(digits)}°${hemisphere(lon, 'W', 'E', step)}`, x + 3, this.height - 6);
    }
    for (let lat = Math.ceil(s / step) * step; lat <= n; lat += step) {
      const [, y] = this.toScreen(0, project(0, lat)[1]);
      ctx.moveTo(0, Math.round(y) + 0.5); ctx.lineTo(this.width, Math.round(y) + 0.5);
      if (y > 112) ctx.fillText(`${Math.abs(lat).toFixed(digits)}°${hemisphere(lat, 'S', 'N', step)}`, 4, y - 3);
    }
    ctx.stroke();
  }

  // Traces `rings` into the current path, dropping vertices closer than half a pixel to the
  // last one kept (a zoomed-out polygon of 10,000 vertices becomes a few dozen segments).
  tracePath(ctx, rings) {
    const W = this.worldSize, ox = this.width / 2 - this.u * W, oy = this.height / 2 - this.v * W;
    for (const r of rings) {
      let lx = ox + r[0] * W, ly = oy + r[1] * W;
      ctx.moveTo(lx, ly);
      for (let i = 2; i < r.length; i += 2) {
        const x = ox + r[i] * W, y = oy + r[i + 1] * W;
        if (Math.abs(x - lx) < 0.5 && Math.abs(y - ly) < 0.5) continue;
        ctx.lineTo(x, y); lx = x; ly = y;
      }
      ctx.closePath();
    }
  }

  drawRegions(ctx) {
    const W = this.worldSize;
    const [u0, v0] = this.fromScreen(0, 0), [u1, v1] = this.fromScreen(this.width, this.height);
    const dots = { plain: [], occupied: [] };
    let selected = null;
    ctx.lineWidth = 1.25;
    for (const r of this.regions) {
      const b = r.bounds;
      if (b[2] < u0 || b[0] > u1 || b[3] < v0 || b[1] > v1) continue;     // culled
      if (this.selected && this.selected.type === 'region' && this.selected.id === r.id) selected = r;
      if ((b[2] - b[0]) * W < 3 && (b[3] - b[1]) * W < 3) {               // a dot when tiny
        (r.occupied ? dots.occupied : dots.plain).push(r);
        continue;
      }
      ctx.beginPath();
      this.tracePath(ctx, r.rings);
      ctx.fillStyle = r.occupied ? COLORS.occupied : COLORS.region;
      ctx.strokeStyle = r.occupied ? COLORS.occupiedStroke : COLORS.regionStroke;
      ctx.fill('evenodd');
      ctx.stroke();
    }
    for (const [list, color] of [[dots.plain, COLORS.regionStroke], [dots.occupied, COLORS.occupiedStroke]]) {
      ctx.fillStyle = color;
      for (const r of list) {
        const [x, y] = this.toScreen((r.bounds[0] + r.bounds[2]) / 2, (r.bounds[1] + r.bounds[3]) / 2);
        ctx.fillRect(x - 1, y - 1, 2.5, 2.5);
      }
    }
    if (selected) {
      ctx.beginPath();
      this.tracePath(ctx, selected.rings);
      ctx.setLineDash([6, 4]); ctx.lineWidth = 2.5; ctx.strokeStyle = COLORS.selectedStroke;
      ctx.stroke(); ctx.setLineDash([]);
    }
  }

  drawDraft(ctx) {
    const d = this.draft;
    if (!d) return;
    ctx.beginPath();
    if (d.rings) this.tracePath(ctx, d.rings);
    ctx.fillStyle = COLORS.draft; ctx.strokeStyle = COLORS.draftStroke; ctx.lineWidth = 2;
    if (d.rings && !d.open) ctx.fill('evenodd');
    if (d.open && d.points.length) {
      ctx.beginPath();
      d.points.forEach(([u, v], i) => { const [x, y] = this.toScreen(u, v); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      if (d.cursor) { const [x, y] = this.toScreen(d.cursor[0], d.cursor[1]); ctx.lineTo(x, y); }
    }
    ctx.stroke();
    ctx.fillStyle = COLORS.draftStroke;
    for (const [u, v] of d.points || []) {
      const [x, y] = this.toScreen(u, v);
      ctx.fillRect(x - 3, y - 3, 6, 6);
    }
  }

  drawDevices(ctx) {
    ctx.lineJoin = 'round';
    for (const d of this.devices.values()) {
      if (d.track.length < 2) continue;
      ctx.beginPath();
      d.track.forEach(([u, v], i) => { const [x, y] = this.toScreen(u, v); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      ctx.strokeStyle = COLORS.track; ctx.lineWidth = 2; ctx.setLineDash([4, 3]);
      ctx.stroke(); ctx.setLineDash([]);
    }
    for (const d of this.devices.values()) {
      const [x, y] = this.toScreen(d.u, d.v);
      if (x < -20 || y < -20 || x > this.width + 20 || y > this.height + 20) continue;
      const sel = this.selected && this.selected.type === 'device' && this.selected.id === d.id;
      ctx.beginPath(); ctx.arc(x, y, sel ? 10 : 7, 0, 2 * Math.PI);
      ctx.fillStyle = COLORS.device; ctx.fill();
      ctx.lineWidth = sel ? 3 : 2; ctx.strokeStyle = '#ffffff'; ctx.stroke();
      if (this.zoom > 11) {
        ctx.font = '600 12px system-ui, sans-serif';
        ctx.lineWidth = 3; ctx.strokeStyle = 'rgba(255,255,255,0.9)';
        ctx.strokeText(d.id, x + 11, y + 4);
        ctx.fillStyle = '#0f172a'; ctx.fillText(d.id, x + 11, y + 4);
      }
    }
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
      const [x, y] = this.toScreen(f.u, f.v);
      ctx.beginPath(); ctx.arc(x, y, 10 + 34 * t, 0, 2 * Math.PI);
      ctx.globalAlpha = 1 - t; ctx.lineWidth = 3; ctx.strokeStyle = f.color; ctx.stroke();
      ctx.globalAlpha = 1;
    }
  }

  drawTiles(ctx) {
    const z = Math.max(0, Math.min(19, Math.round(this.zoom)));
    const n = Math.pow(2, z), scale = this.worldSize / (TILE * n), size = TILE * scale;
    const [u0, v0] = this.fromScreen(0, 0), [u1, v1] = this.fromScreen(this.width, this.height);
    for (let ty = Math.max(0, Math.floor(v0 * n)); ty <= Math.min(n - 1, Math.floor(v1 * n)); ty++) {
      for (let tx = Math.max(0, Math.floor(u0 * n)); tx <= Math.min(n - 1, Math.floor(u1 * n)); tx++) {
        const key = `${z}/${tx}/${ty}`;
        let img = this.tiles.get(key);
        if (!img) {
          if (this.tiles.size > 300) this.tiles.delete(this.tiles.keys().next().value);
          img = new Image();
          img.onload = () => this.requestRender();
          img.src = this.tileURL.replace('{z}', z).replace('{x}', tx).replace('{y}', ty);
          this.tiles.set(key, img);
        }
        if (img.complete && img.naturalWidth) {
          const [x, y] = this.toScreen(tx / n, ty / n);
          ctx.drawImage(img, Math.round(x), Math.round(y), Math.ceil(size), Math.ceil(size));
        }
      }
    }
  }

  updateScaleBar() {
    const bar = document.getElementById('scale-bar'), label = document.getElementById('scale-label');
    if (!bar) return;
    const [, lat] = this.center();
    const metresPerPixel = metresPerUnit(lat) / this.worldSize;
    const m = niceLength(metresPerPixel * 120);
    bar.style.width = `${Math.round(m / metresPerPixel)}px`;
    label.textContent = formatDistance(m);
  }
}
