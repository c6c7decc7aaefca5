// The side panels beside the live list: devices (last seen first, with their last fix and the
// regions they are in), the event history (filters, paging, CSV / GeoJSON export) and the
// region list (search, fly to, GeoJSON import with the server's problem per feature, export of
// the regions in view). Everything is read through /v1 with the key in the header.
import { ApiProblem } from './api.js';
import { $, el, formatTime, formatAge, inputTime, download } from './dom.js';
import { statusWord } from './status.js';

const PAGE = 50;
const VERB = { enter: 'entered', exit: 'left', dwell: 'dwells in' };
const q = (params) => Object.entries(params).filter(([, v]) => v !== null && v !== undefined && v !== '')
  .map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');

export class Panels {
  constructor(ctx) {
    this.ctx = ctx;
    this.devicesNext = null;
    this.historyNext = null;
    this.regionsNext = null;
    for (const name of ['live', 'devices', 'history', 'regions']) {
      $(`tab-${name}`).addEventListener('click', () => this.show(name));
    }
    $('devices-form').addEventListener('submit', (e) => { e.preventDefault(); this.loadDevices(); });
    $('devices-more').addEventListener('click', () => this.loadDevices(true));
    $('history-form').addEventListener('submit', (e) => { e.preventDefault(); this.loadHistory(); });
    $('history-more').addEventListener('click', () => this.loadHistory(true));
    $('export-csv').addEventListener('click', () => this.exportHistory('csv'));
    $('export-geojson').addEventListener('click', () => this.exportHistory('geojson'));
    $('regions-form').addEventListener('submit', (e) => { e.preventDefault(); this.loadRegions(); });
    $('regions-more').addEventListener('click', () => this.loadRegions(true));
    $('import-file').addEventListener('change', (e) => this.importFile(e.target));
    $('export-view').addEventListener('click', () => this.exportView());
    this.picked = new Set();   // region ids ticked in the list, kept across searches
    $('export-selected').addEventListener('click', () => this.exportSelected());
  }

  show(name) {
    this.current = name;
    for (const n of ['live', 'devices', 'history', 'regions']) {
      $(`tab-${n}`).setAttribute('aria-selected', String(n === name));
      $(`panel-${n}`).hidden = n !== name;
    }
    if (name === 'devices' && !this.devicesLoaded) this.loadDevices();
    if (name === 'history' && !this.historyLoaded) this.loadHistory();
    if (name === 'regions' && !this.regionsLoaded) this.loadRegions();
  }

  // MARK: Devices

  async loadDevices(more = false) {
    const params = { limit: PAGE, prefix: $('devices-prefix').value.trim(), inside: $('devices-inside').value.trim() };
    if (more) params.after = this.devicesNext;
    $('devices-status').textContent = 'Loading…';
    try {
      const page = await this.ctx.api.get(`/v1/devices?${q(params)}`);
      this.devicesLoaded = true;
      const rows = page.devices.map((d) => this.deviceRow(d));
      if (more) $('device-list').append(...rows); else $('device-list').replaceChildren(...rows);
      this.devicesNext = page.next;
      $('devices-more').hidden = !page.next;
      const n = $('device-list').children.length;
      $('devices-status').textContent = n ? `${n} device${n === 1 ? '' : 's'}${page.next ? ' shown, more below' : ''}, last seen first`
        : page.next ? 'No match among the devices read so far; More reads further.' : 'No device matches.';
    } catch (e) {
      $('devices-status').textContent = e.message;
      if (!(e instanceof ApiProblem && e.status === 404)) this.ctx.toast(e);
    }
  }

  deviceRow(d) {
    const f = d.lastFix;
    const inside = d.inside.length
      ? el('span', { class: 'chips' }, d.inside.slice(0, 4).map((r) => el('span', { class: 'chip', title: r }, r)),
        d.inside.length > 4 ? el('span', { class: 'muted' }, ` +${d.inside.length - 4}`) : null)
      : el('span', { class: 'muted' }, 'in no region');
    return el('li', {}, el('button', {
      type: 'button', class: 'row-button device-row', 'data-device': d.id,
      onclick: () => { this.ctx.select({ type: 'device', id: d.id }); this.ctx.centreOn(f.longitude, f.latitude); },
    },
    el('span', { class: 'row-title', title: d.id }, d.id),
    el('span', { class: 'row-meta' },
      el('span', { class: `status ${statusWord(f.timestamp)}` }, statusWord(f.timestamp)), ' · ',
      el('time', { datetime: f.timestamp, title: formatTime(f.timestamp) }, formatAge(f.timestamp)),
      f.horizontalAccuracy !== undefined ? ` · ±${Math.round(f.horizontalAccuracy)} m` : '',
      d.battery ? el('span', { class: 'battery', title: `battery reported ${formatTime(d.battery.time)}` },
        ` · battery ${Math.round(d.battery.percent)} %`) : '',
      ` · ${f.latitude.toFixed(5)}, ${f.longitude.toFixed(5)}`),
    inside));
  }

  // MARK: History

  historyParams() {
    return {
      device: $('history-device').value.trim(), region: $('history-region').value.trim(), kind: $('history-kind').value,
      from: inputTime($('history-from')), to: inputTime($('history-to')),
    };
  }

  async loadHistory(more = false) {
    const params = { ...this.historyParams(), limit: PAGE };
    if (more) params.before = this.historyNext;
    $('history-status').textContent = 'Loading…';
    try {
      const page = await this.ctx.api.get(`/v1/events/history?${q(params)}`);
      this.historyLoaded = true;
      const rows = page.events.map((e) => this.ctx.eventRow(e));
      if (more) $('history-list').append(...rows); else $('history-list').replaceChildren(...rows);
      this.historyNext = page.next;
      $('history-more').hidden = !page.next;
      const n = $('history-list').children.length;
      $('history-status').textContent = n ? `${n} event${n === 1 ? '' : 's'}, newest first${page.next ? ' (more older)' : ''}` : page.next ? 'No match among the events read so far; More reads older ones.' : 'No event matches.';
    } catch (e) {
      $('history-status').textContent = e.message;
      this.ctx.toast(e);
    }
  }

  // Every event matching the filters (up to 20 pages of 1,000), as one file.
  async exportHistory(format) {
    const base = this.historyParams();
    const parts = [];
    let before = null, count = 0;
    try {
      for (let i = 0; i < 20; i++) {
        const page = await this.ctx.api.get(`/v1/events/history?${q({ ...base, limit: 1000, before })}`);
        parts.push(...page.events);
        count += page.events.length;
        if (!page.next) break;
        before = page.next;
      }
    } catch (e) { this.ctx.toast(e); return; }
    const text = format === 'csv' ? toCSV(parts) : JSON.stringify(toGeoJSON(parts), null, 1);
    download(`events.${format === 'csv' ? 'csv' : 'geojson'}`, format === 'csv' ? 'text/csv' : 'application/geo+json', text);
    this.ctx.toastInfo(`Exported ${count.toLocaleString()} events as ${format === 'csv' ? 'CSV' : 'GeoJSON'}.`);
  }

  // MARK: Regions

  async loadRegions(more = false) {
    const params = { q: $('regions-q').value.trim(), limit: PAGE };
    if (more) params.after = this.regionsNext;
    $('regions-status').textContent = 'Searching…';
    try {
      const page = await this.ctx.api.get(`/v1/regions/search?${q(params)}`);
      this.regionsLoaded = true;
      const rows = page.regions.map((r) => this.regionRow(r));
      if (more) $('region-list').append(...rows); else $('region-list').replaceChildren(...rows);
      this.regionsNext = page.next;
      $('regions-more').hidden = !page.next;
      $('regions-status').textContent = page.matched
        ? `${page.matched.toLocaleString()} region${page.matched === 1 ? '' : 's'} match; ${$('region-list').children.length.toLocaleString()} shown`
        : 'No region matches.';
    } catch (e) {
      $('regions-status').textContent = e.message;
      this.ctx.toast(e);
    }
  }

  regionRow(r) {
    const meta = [r.shape, r.source ? `source ${r.source}` : null, r.parent ? `in ${r.parent}` : 'top tier'].filter(Boolean).join(' · ');
    const pick = el('input', { type: 'checkbox', class: 'region-pick', 'aria-label': `Select ${r.id}`, 'data-region': r.id,
      onchange: (e) => { if (e.target.checked) this.picked.add(r.id); else this.picked.delete(r.id); this.pickedChanged(); } });
    pick.checked = this.picked.has(r.id);
    return el('li', { class: 'region-item' }, pick, el('button', {
      type: 'button', class: 'row-button region-row', 'data-region': r.id,
      onclick: () => { this.ctx.flyTo(r.bbox); this.ctx.select({ type: 'region', id: r.id }); },
    },
    el('span', { class: 'row-title', title: r.id }, r.id),
    r.name ? el('span', { class: 'row-name', title: r.name }, r.name) : null,
    el('span', { class: 'row-meta' }, meta)));
  }

  // Imports a GeoJSON file: the server takes a collection whole or not at all, so each
  // feature it refuses (its problem names `features[i]`) is set aside with that problem and
  // the rest sent again — at most 50 refusals, then the report says so.
  async importFile(input) {
    const file = input.files && input.files[0];
    input.value = '';
    if (!file) return;
    const report = $('import-report');
    report.hidden = false;
    report.className = 'import-report';
    report.replaceChildren(el('p', {}, `Reading ${file.name}…`));
    let doc;
    try { doc = JSON.parse(await file.text()); } catch (e) {
      report.className = 'import-report bad';
      report.replaceChildren(el('p', {}, `${file.name} is not JSON: ${e.message}`));
      return;
    }
    let features = doc && doc.type === 'FeatureCollection' && Array.isArray(doc.features) ? doc.features.map((f, i) => [i, f])
      : doc && doc.type === 'Feature' ? [[0, doc]] : null;
    if (!features) {
      report.className = 'import-report bad';
      report.replaceChildren(el('p', {}, `${file.name} is neither a GeoJSON Feature nor a FeatureCollection.`));
      return;
    }
    const problems = [];
    let answer = null;
    while (features.length && problems.length < 50) {
      try {
        answer = await this.ctx.api.post('/v1/regions/import', { type: 'FeatureCollection', features: features.map(([, f]) => f) });
        break;
      } catch (e) {
        const m = e instanceof ApiProblem && e.field ? /^features\[(\d+)\](.*)$/.exec(e.field) : null;
        if (!m) { problems.push({ index: null, detail: e.message }); answer = null; features = []; break; }
        const [index, f] = features[Number(m[1])];
        // The detail names the feature by its place in the collection sent, which shrinks as
        // refused features are set aside: the report names it by its place in the file.
        const detail = (e.detail || e.message).replace(/^features\[\d+\][^:]*:\s*/, '');
        problems.push({ index, id: f && f.properties ? f.properties.id : undefined, field: m[2].replace(/^\./, ''), detail });
        features.splice(Number(m[1]), 1);
      }
    }
    problems.sort((a, b) => (a.index ?? -1) - (b.index ?? -1));   // the file's order, not the order refused
    report.className = `import-report${problems.length ? ' bad' : ' good'}`;
    report.replaceChildren(
      el('p', {}, answer ? `Imported ${answer.imported} region${answer.imported === 1 ? '' : 's'} from ${file.name} (${answer.created} new, ${answer.replaced} replaced).`
        : `Nothing imported from ${file.name}.`),
      problems.length ? el('p', {}, `${problems.length} feature${problems.length === 1 ? ' was' : 's were'} refused${problems.length >= 50 ? ' (stopped at 50)' : ''}:`) : null,
      problems.length ? el('ul', { class: 'problems' }, problems.map((p) => el('li', {},
        p.index === null ? '' : el('strong', {}, `Feature ${p.index}${p.id !== undefined ? ` (${p.id})` : ''}`), ' ',
        p.field ? el('code', {}, p.field) : null, ` ${p.detail}`))) : null);
    if (answer) { this.ctx.onImported(); this.loadRegions(); }
  }

  pickedChanged() {
    const n = this.picked.size;
    $('export-selected').disabled = n === 0;
    $('export-selected').textContent = n ? `Export selected (${n.toLocaleString()})` : 'Export selected';
  }

  // The ticked regions, read one by one (eight at a time) as a FeatureCollection file; a
  // region deleted since it was ticked is left out and counted.
  async exportSelected() {
    const ids = [...this.picked];
    const features = new Array(ids.length);
    let missing = 0, next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        try { features[i] = await this.ctx.api.get(`/v1/regions/${encodeURIComponent(ids[i])}`); } catch (e) {
          if (e instanceof ApiProblem && e.status === 404) missing++; else throw e;
        }
      }
    };
    try { await Promise.all(Array.from({ length: Math.min(8, ids.length) }, worker)); } catch (e) { this.ctx.toast(e); return; }
    const found = features.filter(Boolean);
    download('regions.geojson', 'application/geo+json', JSON.stringify({ type: 'FeatureCollection', features: found }));
    this.ctx.toastInfo(`Exported ${found.length.toLocaleString()} selected region${found.length === 1 ? '' : 's'}${missing ? ` (${missing} no longer exist)` : ''}.`);
  }

  // The regions overlapping the view, as a FeatureCollection file (at most 10 pages of 1,000).
  async exportView() {
    const bbox = this.ctx.map.bbox().map((x) => x.toFixed(6)).join(',');
    const features = [];
    let after = null;
    try {
      for (let i = 0; i < 10; i++) {
        const page = await this.ctx.api.get(`/v1/regions?${q({ bbox, limit: 1000, after })}`);
        features.push(...page.regions);
        if (!page.next) break;
        after = page.next;
      }
    } catch (e) { this.ctx.toast(e); return; }
    download('regions.geojson', 'application/geo+json', JSON.stringify({ type: 'FeatureCollection', features }));
    this.ctx.toastInfo(`Exported ${features.length.toLocaleString()} regions in view.`);
  }
}

const CSV_COLUMNS = ['cursor', 'time', 'event', 'device', 'region', 'latitude', 'longitude', 'crossedAt', 'id'];

// RFC 4180, as the server's format=csv writes it (text quoted, formulas defused).
export function toCSV(events) {
  const cell = (k, v) => {
    if (v === undefined || v === null) return '';
    if (typeof v === 'number' || k === 'cursor') return String(v);
    let s = String(v);
    if (/^[=+\-@]/.test(s)) s = `'${s}`;
    return `"${s.replace(/"/g, '""')}"`;
  };
  return [CSV_COLUMNS.join(','), ...events.map((e) => CSV_COLUMNS.map((k) => cell(k, e[k])).join(','))].join('\r\n') + '\r\n';
}

export function toGeoJSON(events) {
  return {
    type: 'FeatureCollection',
    features: events.map(({ latitude, longitude, ...rest }) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [longitude, latitude] }, properties: rest })),
  };
}

export { VERB };
