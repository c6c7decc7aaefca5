// Live tracks: each device's recent fixes, drawn per device into a cached layer (layer.js)
// rather than every frame. What one rebuild costs is bounded by what is visible: a track is
// cut where two fixes are more than TRACK_GAP_MS apart (no straight line joins positions
// hours apart), simplified for the zoom (a vertex within SIMPLIFY_PX of the last one drawn is
// skipped, so a track seen from far away is a few segments), and skipped when its bounds miss
// the layer. A track holds at most TRACK_POINTS fixes, in time order.

export const TRACK_POINTS = 100;
export const TRACK_GAP_MS = 10 * 60 * 1000;   // fixes further apart than 10 minutes are not joined
const SIMPLIFY_PX = 1.5;

// A device's last TRACK_POINTS fixes in three typed arrays used as a ring (oldest first from
// `start`): a fleet's history is a few thousand objects for the garbage collector, not one
// per fix.
export class Track {
  constructor() {
    this.u = new Float64Array(TRACK_POINTS);
    this.v = new Float64Array(TRACK_POINTS);
    this.t = new Float64Array(TRACK_POINTS);
    this.start = 0;
    this.length = 0;
    this.bounds = null;   // [minU, minV, maxU, maxV], computed when asked after a change
  }

  // The ring index of the i-th fix, oldest first.
  index(i) { return (this.start + i) % TRACK_POINTS; }

  // Appends a fix (u, v, time in ms) when it is newer than the last one and moved; an older fix
  // (a poll that read a position the stream already passed) is ignored. Answers whether the
  // track changed.
  append(u, v, t) {
    if (this.length) {
      const last = this.index(this.length - 1);
      if (t < this.t[last] || (this.u[last] === u && this.v[last] === v)) return false;
    }
    const i = this.length < TRACK_POINTS ? this.index(this.length) : this.start;
    this.u[i] = u; this.v[i] = v; this.t[i] = t;
    if (this.length < TRACK_POINTS) this.length++; else this.start = (this.start + 1) % TRACK_POINTS;
    this.bounds = null;
    return true;
  }
}

// [minU, minV, maxU, maxV] of a track, kept until the track changes: a layer's rebuild asks
// every device's, and most tracks have not moved since the last one.
export function trackBounds(track) {
  if (!track.bounds) track.bounds = computeBounds(track);
  return track.bounds;
}

function computeBounds(track) {
  let u0 = Infinity, v0 = Infinity, u1 = -Infinity, v1 = -Infinity;
  for (let k = 0; k < track.length; k++) {
    const i = track.index(k), u = track.u[i], v = track.v[i];
    if (u < u0) u0 = u; if (u > u1) u1 = u;
    if (v < v0) v0 = v; if (v > v1) v1 = v;
  }
  return [u0, v0, u1, v1];
}

// Traces `track` into `path` in `view`'s pixels (shifted by `k` worlds): a new sub-path at
// each gap, vertices closer than SIMPLIFY_PX to the last one drawn skipped. Answers the
// segments traced (for the browser test's figures).
export function traceTrack(path, track, view, k = 0) {
  const W = view.W;
  // A track within SIMPLIFY_PX at this zoom would be one point under its device's dot: seen
  // from far away, a fleet's rebuild costs one look per device, not one per fix.
  const b = trackBounds(track);
  if ((b[2] - b[0]) * W < SIMPLIFY_PX && (b[3] - b[1]) * W < SIMPLIFY_PX) return 0;
  const ox = view.ox - (view.u - k) * W, oy = view.oy - view.v * W;
  let lx = 0, ly = 0, lt = -Infinity, segments = 0;
  for (let n = 0; n < track.length; n++) {
    const i = track.index(n), t = track.t[i];
    const x = ox + track.u[i] * W, y = oy + track.v[i] * W;
    const gap = t - lt > TRACK_GAP_MS;
    lt = t;
    if (gap) { path.moveTo(x, y); lx = x; ly = y; continue; }
    if (Math.abs(x - lx) < SIMPLIFY_PX && Math.abs(y - ly) < SIMPLIFY_PX) continue;
    path.lineTo(x, y); lx = x; ly = y;
    segments++;
  }
  return segments;
}
