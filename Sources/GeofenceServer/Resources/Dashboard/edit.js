// Drawing and editing regions: a circle (centre, then radius) or a polygon (vertices, then
// finish), by pointer or by keyboard (Enter puts a point at the crosshair in the middle of
// the map), then a form for the properties; saved through POST or PUT /v1/regions with the
// server's problem answers shown beside the field at fault.
import { ApiProblem } from './api.js';
import { unproject, circleRing, projectRing, distance, formatDistance } from './geo.js';

const $ = (id) => document.getElementById(id);
const RESERVED = ['id', 'radius', 'notifyOnEntry', 'notifyOnExit', 'dwell'];

export class Editor {
  constructor(map, { api, onSaved, showProblem }) {
    this.map = map;
    this.api = api;
    this.onSaved = onSaved;
    this.showProblem = showProblem;
    this.mode = null;          // 'circle' | 'polygon'
    this.points = [];          // [[lon, lat]]
    this.editing = null;       // the feature being edited, or null for a new region
    this.geometry = null;      // the geometry the form will save
    $('hint-finish').addEventListener('click', () => this.finish());
    $('hint-cancel').addEventListener('click', () => this.cancel());
    $('region-form').addEventListener('submit', (e) => { e.preventDefault(); this.save(); });
    $('form-cancel').addEventListener('click', () => this.closeForm());
    $('region-dialog').addEventListener('close', () => this.clearDraft());
    map.canvas.addEventListener('keydown', (e) => {
      if (!this.mode) return;
      if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); this.clickAtCentre(); }
      if (e.key === 'Enter' && e.shiftKey) { e.preventDefault(); this.finish(); }
      if (e.key === 'Backspace' && this.mode === 'polygon') { e.preventDefault(); this.points.pop(); this.redraw(); }
    });
    map.canvas.addEventListener('dblclick', (e) => { if (this.mode === 'polygon') { e.preventDefault(); this.finish(); } });
  }

  get active() { return this.mode !== null; }

  start(mode) {
    this.cancel();
    this.mode = mode;
    this.points = [];
    this.cursor = null;
    $(`draw-${mode}`).setAttribute('aria-pressed', 'true');
    document.body.classList.add('drawing');
    this.hint();
    this.map.canvas.focus();
  }

  cancel() {
    for (const m of ['circle', 'polygon']) $(`draw-${m}`).setAttribute('aria-pressed', 'false');
    this.mode = null;
    this.points = [];
    this.changing = null;
    this.picked = null;
    document.body.classList.remove('drawing');
    $('hint').hidden = true;
    this.clearDraft();
  }

  clearDraft() { this.map.draft = null; this.map.requestRender(); }

  hint() {
    const text = this.mode === 'circle'
      ? (this.points.length ? 'Click the edge (or move the map and press Enter at the crosshair) to set the radius.'
        : 'Click the centre of the circle, or press Enter to use the crosshair.')
      : `Click the vertices (${this.points.length} so far); Enter adds the crosshair; double-click, “Finish” or Shift+Enter closes the polygon.`;
    $('hint-text').textContent = text;
    $('hint-finish').hidden = this.mode !== 'polygon';
    $('hint').hidden = false;
  }

  click(u, v) {
    const [lon, lat] = unproject(u - Math.floor(u), v);   // the view wraps; longitudes stay in [-180, 180)
    if (this.mode === 'move') { this.moveTo(lon, lat); return; }
    if (this.mode === 'radius') { this.setRadius(lon, lat); return; }
    if (this.mode === 'vertices') { this.pickOrPlace(u, v, lon, lat); return; }
    if (this.mode === 'circle') {
      this.points.push([lon, lat]);
      if (this.points.length === 2) { this.finish(); return; }
    } else {
      // A click on the first vertex closes the polygon.
      if (this.points.length >= 3) {
        const [x0, y0] = this.map.toScreen(...projectPoint(this.points[0]));
        const [x1, y1] = this.map.toScreen(u, v);
        if (Math.hypot(x1 - x0, y1 - y0) < 10) { this.finish(); return; }
      }
      this.points.push([lon, lat]);
    }
    this.hint();
    this.redraw();
  }

  clickAtCentre() {
    this.click(this.map.u, this.map.v);
  }

  pointer(x, y) {
    if ((this.mode !== 'circle' && this.mode !== 'polygon') || !this.points.length) return;
    this.cursor = unproject(...this.map.fromScreen(x, y));
    this.redraw();
  }

  redraw() {
    const pts = this.points.map(projectPoint);
    if (this.mode === 'circle' && this.points.length === 1) {
      const [lon, lat] = this.points[0];
      const c = this.cursor || this.points[0];
      const r = Math.max(1, distance(lon, lat, c[0], c[1]));
      this.map.draft = { rings: [projectRing(circleRing(lon, lat, r))], open: false, points: pts };
      $('hint-text').textContent = `Radius ${formatDistance(r)} — click to set it.`;
    } else {
      this.map.draft = { open: true, points: pts, cursor: this.cursor ? projectPoint(this.cursor) : null };
    }
    this.map.requestRender();
  }

  // Turns the points into a geometry and opens the form.
  finish() {
    if (this.mode === 'vertices') { this.finishVertices(); return; }
    if (this.mode === 'circle') {
      if (!this.points.length) return;
      const [lon, lat] = this.points[0];
      const edge = this.points[1];
      const view = this.map.bbox();
      // No edge, or one on the centre (Enter twice without moving): a sixth of the view's width.
      const drawn = edge ? distance(lon, lat, edge[0], edge[1]) : 0;
      const radius = drawn >= 1 ? drawn : distance(view[0], lat, view[2], lat) / 6;
      this.geometry = { type: 'Point', coordinates: [round(lon), round(lat)] };
      this.map.draft = { rings: [projectRing(circleRing(lon, lat, radius))], open: false, points: [] };
      this.openForm(null, Math.max(1, Math.round(radius)));
    } else {
      if (this.points.length < 3) { $('hint-text').textContent = 'A polygon needs at least three vertices.'; return; }
      const ring = this.points.map(([lon, lat]) => [round(lon), round(lat)]);
      ring.push(ring[0]);
      this.geometry = { type: 'Polygon', coordinates: [ring] };
      this.map.draft = { rings: [projectRing(ring)], open: false, points: [] };
      this.openForm(null);
    }
    const keep = this.map.draft;
    this.cancel();
    this.map.draft = keep;
    this.map.requestRender();
  }

  // MARK: Move and reshape an existing region (then the form, to save it with PUT)

  // Move: the next click is the region's new centre (a polygon's box centre); the shape keeps
  // its size in degrees.
  move(feature) {
    this.beginChange('move', feature, 'Click the new centre of the region (Escape cancels).');
  }

  // Reshape: a circle's next click sets its edge; a polygon's vertices get handles — click one,
  // then click where it goes; “Finish” opens the form.
  reshape(feature) {
    if (feature.geometry.type === 'Point') {
      this.beginChange('radius', feature, 'Click the new edge of the circle (Escape cancels).');
    } else if (feature.geometry.type === 'Polygon') {
      this.beginChange('vertices', feature, 'Click a vertex, then click where it goes; “Finish” when done.');
      this.points = feature.geometry.coordinates[0].slice(0, -1).map((p) => [p[0], p[1]]);
      this.picked = null;
      this.redrawVertices();
    } else {
      this.showProblem(new Error('A MultiPolygon is reshaped by importing it again (Regions panel, Import GeoJSON).'));
    }
  }

  beginChange(mode, feature, text) {
    this.cancel();
    this.mode = mode;
    this.changing = feature;
    document.body.classList.add('drawing');
    $('hint-text').textContent = text;
    $('hint-finish').hidden = mode !== 'vertices';
    $('hint').hidden = false;
    this.map.canvas.focus();
  }

  moveTo(lon, lat) {
    const f = this.changing, g = f.geometry;
    let geometry;
    if (g.type === 'Point') {
      geometry = { type: 'Point', coordinates: [round(lon), round(lat)] };
    } else {
      const all = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).flat(2);
      const lons = all.map((p) => p[0]), lats = all.map((p) => p[1]);
      const dLon = lon - (Math.min(...lons) + Math.max(...lons)) / 2, dLat = lat - (Math.min(...lats) + Math.max(...lats)) / 2;
      const shift = (p) => [round(wrapLon(p[0] + dLon)), round(Math.max(-90, Math.min(90, p[1] + dLat)))];
      geometry = g.type === 'Polygon' ? { type: 'Polygon', coordinates: g.coordinates.map((r) => r.map(shift)) }
        : { type: 'MultiPolygon', coordinates: g.coordinates.map((poly) => poly.map((r) => r.map(shift))) };
    }
    this.changed(f, geometry, f.properties.radius);
  }

  setRadius(lon, lat) {
    const f = this.changing, [cLon, cLat] = f.geometry.coordinates;
    this.changed(f, f.geometry, Math.max(1, Math.round(distance(cLon, cLat, lon, lat))));
  }

  pickOrPlace(u, v, lon, lat) {
    if (this.picked === null) {
      const [x, y] = this.map.toScreen(this.map.near(u), v);
      let best = null, bestD = 12;
      this.points.forEach((p, i) => {
        const [pu, pv] = projectPoint(p);
        const [px, py] = this.map.toScreen(this.map.near(pu), pv);
        const d = Math.hypot(px - x, py - y);
        if (d < bestD) { bestD = d; best = i; }
      });
      this.picked = best;
      $('hint-text').textContent = best === null ? 'No vertex there: click on a square handle.' : `Vertex ${best + 1} picked: click where it goes.`;
    } else {
      this.points[this.picked] = [lon, lat];
      this.picked = null;
      $('hint-text').textContent = 'Click a vertex, then click where it goes; “Finish” when done.';
    }
    this.redrawVertices();
  }

  redrawVertices() {
    const ring = this.points.concat([this.points[0]]);
    this.map.draft = { rings: [projectRing(ring)], open: false, points: this.points.map(projectPoint) };
    this.map.requestRender();
  }

  finishVertices() {
    const f = this.changing;
    const ring = this.points.map(([lon, lat]) => [round(lon), round(lat)]);
    ring.push(ring[0]);
    this.changed(f, { type: 'Polygon', coordinates: [ring, ...f.geometry.coordinates.slice(1)] });
  }

  // Shows the changed shape as a draft and opens the form to save it.
  changed(feature, geometry, radius) {
    const rings = geometry.type === 'Point'
      ? [projectRing(circleRing(geometry.coordinates[0], geometry.coordinates[1], radius))]
      : (geometry.type === 'Polygon' ? geometry.coordinates : geometry.coordinates.flat()).map(projectRing);
    this.cancel();
    this.geometry = geometry;
    this.map.draft = { rings, open: false, points: [] };
    this.map.requestRender();
    this.openForm(feature, radius);
  }

  // Opens the form for an existing region's properties.
  edit(feature) {
    this.cancel();
    this.geometry = feature.geometry;
    this.openForm(feature, feature.properties.radius);
  }

  openForm(feature, radius) {
    this.editing = feature;
    const p = feature ? feature.properties : {};
    $('form-title').textContent = feature ? `Edit region “${p.id}”` : (this.geometry.type === 'Point' ? 'New circle' : 'New polygon');
    $('f-id').value = feature ? p.id : '';
    $('f-id').readOnly = !!feature;
    $('f-radius-row').hidden = this.geometry.type !== 'Point';
    $('f-radius').value = radius ?? '';
    $('f-entry').checked = p.notifyOnEntry !== false;
    $('f-exit').checked = p.notifyOnExit !== false;
    $('f-dwell').value = p.dwell ?? '';
    $('f-metadata').value = Object.entries(p).filter(([k]) => !RESERVED.includes(k)).map(([k, v]) => `${k}=${v}`).join('\n');
    this.showFormProblem(null);
    $('region-dialog').showModal();
    (feature ? $('f-radius-row').hidden ? $('f-entry') : $('f-radius') : $('f-id')).focus();
  }

  closeForm() { $('region-dialog').close(); }

  // The feature the form describes; metadata lines are `key=value`.
  feature() {
    const properties = { id: $('f-id').value.trim() };
    if (this.geometry.type === 'Point') properties.radius = Number($('f-radius').value);
    if (!$('f-entry').checked) properties.notifyOnEntry = false;
    if (!$('f-exit').checked) properties.notifyOnExit = false;
    if ($('f-dwell').value.trim() !== '') properties.dwell = Number($('f-dwell').value);
    for (const line of $('f-metadata').value.split('\n')) {
      const i = line.indexOf('=');
      if (i > 0 && !RESERVED.includes(line.slice(0, i).trim())) properties[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    return { type: 'Feature', geometry: this.geometry, properties };
  }

  async save() {
    const f = this.feature();
    $('form-save').disabled = true;
    try {
      const saved = this.editing
        ? await this.api.put(`/v1/regions/${encodeURIComponent(this.editing.properties.id)}`, f)
        : await this.api.post('/v1/regions', f);
      this.closeForm();
      this.onSaved(saved);
    } catch (e) {
      if (e instanceof ApiProblem) this.showFormProblem(e); else this.showProblem(e);
    } finally {
      $('form-save').disabled = false;
    }
  }

  // Shows a problem answer in the form and marks the input its `field` names.
  showFormProblem(problem) {
    for (const input of document.querySelectorAll('#region-form [aria-invalid]')) input.removeAttribute('aria-invalid');
    const box = $('form-problem');
    if (!problem) { box.hidden = true; box.textContent = ''; return; }
    box.hidden = false;
    box.textContent = `${problem.title} (${problem.status}): ${problem.detail}`;
    const field = problem.field || '';
    const input = field.endsWith('radius') ? 'f-radius' : field.endsWith('dwell') ? 'f-dwell'
      : field.endsWith('.id') || field === 'properties.id' ? 'f-id' : null;
    if (input) { $(input).setAttribute('aria-invalid', 'true'); $(input).focus(); }
  }
}

function projectPoint([lon, lat]) { return projectRing([[lon, lat]]); }
function round(x) { return Math.round(x * 1e7) / 1e7; }
function wrapLon(lon) { return ((lon + 540) % 360 + 360) % 360 - 180; }
