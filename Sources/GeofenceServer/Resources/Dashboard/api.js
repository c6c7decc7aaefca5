// The /v1 API as the dashboard uses it: the key as a bearer header (never in a URL), problem
// answers (application/problem+json) as ApiProblem errors, and the event stream read with
// fetch() — EventSource cannot send an Authorization header.

export class ApiProblem extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.title = problem.title || `HTTP ${status}`;
    this.detail = problem.detail || '';
    this.field = problem.field || null;
  }
}

export class Api {
  constructor(key) { this.key = key; }

  async request(method, path, body, signal) {
    const headers = { Authorization: `Bearer ${this.key}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, { method, headers, signal, cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiProblem(0, { title: 'Network error', detail: `The server did not answer (${e.message}).` });
    }
    if (res.status === 204) return null;
    const type = res.headers.get('Content-Type') || '';
    const text = await res.text();
    let json = null;
    if (type.includes('json') && text) {
      try { json = JSON.parse(text); } catch { json = null; }
    }
    if (!res.ok) throw new ApiProblem(res.status, json || { title: `HTTP ${res.status}`, detail: text.slice(0, 300) });
    return json;
  }

  get(path, signal) { return this.request('GET', path, undefined, signal); }
  post(path, body) { return this.request('POST', path, body); }
  put(path, body) { return this.request('PUT', path, body); }
  delete(path) { return this.request('DELETE', path); }

  regionsIn(bbox, limit, signal) {
    return this.get(`/v1/regions?bbox=${bbox.map((x) => x.toFixed(6)).join(',')}&limit=${limit}`, signal);
  }

  // The last page of a list paged by an increasing numeric cursor (`after`), found by a
  // galloping search for the largest cursor, then one read just before it: O(log cursor)
  // small requests however long the list is. `items` names the list in the answer,
  // `cursorOf` reads an item's cursor.
  async tail(path, items, cursorOf, count) {
    const sep = path.includes('?') ? '&' : '?';
    const page = async (after, limit) => (await this.get(`${path}${sep}after=${after}&limit=${limit}`))[items];
    const first = await page(0, 1);
    if (!first.length) return { items: [], last: 0 };
    let lo = Number(cursorOf(first[0])), step = 1024, hi = null;
    // Gallop: find a cursor `hi` with nothing after it.
    for (let i = 0; i < 60 && hi === null; i++) {
      const probe = await page(lo + step, 1);
      if (probe.length) { lo = Number(cursorOf(probe[0])); step *= 4; } else hi = lo + step;
    }
    if (hi === null) hi = lo + step;
    // Bisect: `lo` has an item at it, nothing lies after `hi`.
    while (hi - lo > Math.max(count, 1)) {
      const mid = Math.floor((lo + hi) / 2);
      const probe = await page(mid, 1);
      if (probe.length) lo = Number(cursorOf(probe[0])); else hi = mid;
    }
    // Read the last `count`-ish items before `hi`, widening the window while it holds too few.
    let window = count * 4, got = [];
    for (let i = 0; i < 6; i++) {
      got = await page(Math.max(0, hi - window), 1000);
      if (got.length >= count || hi - window <= 0) break;
      window *= 8;
    }
    return { items: got.slice(-count), last: got.length ? Number(cursorOf(got[got.length - 1])) : hi };
  }

  // Reads `/v1/events/stream` from `after` on, calling `onEvent(json)` per event and
  // `onStatus(text, live, retryAt)` on (re)connection; reconnects from the last id seen (no
  // gap, no duplicate) with back-off until `stop()` is called; `retryNow()` cuts a wait short.
  stream(after, onEvent, onStatus) {
    let cursor = after, stopped = false, controller = null, delay = 500, wake = null;
    const run = async () => {
      while (!stopped) {
        controller = new AbortController();
        try {
          const res = await fetch(`/v1/events/stream?after=${cursor}&timeout=300`, {
            headers: { Authorization: `Bearer ${this.key}`, Accept: 'text/event-stream' },
            signal: controller.signal, cache: 'no-store',
          });
          if (!res.ok) {
            let p = {};
            try { p = await res.json(); } catch { /* not a problem document */ }
            throw new ApiProblem(res.status, p);
          }
          onStatus('Live', true);
          delay = 500;
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let end;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const message = parseEventBlock(block);
              if (message.id !== null) cursor = message.id;
              if (message.data) {
                try { onEvent(JSON.parse(message.data)); } catch (e) { console.error('bad event', e); }
              }
            }
          }
        } catch (e) {
          if (stopped) return;
          if (e instanceof ApiProblem && e.status === 401) { onStatus('Key rejected', false); return; }
          onStatus('Offline — reconnecting…', false, Date.now() + delay);
          await new Promise((r) => { wake = r; setTimeout(r, delay); });
          wake = null;
          delay = Math.min(delay * 2, 10000);
        }
      }
    };
    run();
    return {
      stop: () => { stopped = true; if (controller) controller.abort(); },
      retryNow: () => { delay = 500; if (wake) wake(); },
    };
  }
}

// One Server-Sent Events block: `id:`, `event:`, `data:` lines (data lines joined by "\n").
export function parseEventBlock(block) {
  const out = { id: null, event: 'message', data: '' };
  const data = [];
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') out.id = value;
    else if (field === 'event') out.event = value;
    else if (field === 'data') data.push(value);
  }
  out.data = data.join('\n');
  return out;
}
