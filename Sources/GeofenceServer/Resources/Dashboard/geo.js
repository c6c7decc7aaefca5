// Geometry for the map: Web Mercator, geodesic-ish circles, screen-space simplification.
// Unit Mercator coordinates: u, v in [0, 1], u east from -180°, v south from +85.05°.

export const EARTH_RADIUS = 6371008.8; // mean radius (m), for circles and the scale bar
export const MAX_LAT = 85.0511287798;

export function project(lon, lat) {
  const φ = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI / 180;
  return [(lon + 180) / 360, 0.5 - Math.log(Math.tan(Math.PI / 4 + φ / 2)) / (2 * Math.PI)];
}

export function unproject(u, v) {
  const lon = u * 360 - 180;
  const lat = (2 * Math.atan(Math.exp((0.5 - v) * 2 * Math.PI)) - Math.PI / 2) * 180 / Math.PI;
  return [lon, lat];
}

// Metres per unit of u at latitude lat (the Mercator scale factor is 1/cos φ).
export function metresPerUnit(lat) {
  return 2 * Math.PI * EARTH_RADIUS * Math.cos(lat * Math.PI / 180);
}

// The point `distance` metres from (lon, lat) along `bearing` degrees, on the sphere: within
// 0.5 % of the ellipsoidal geodesic, far below a pixel at any zoom where a circle is drawn.
export function destination(lon, lat, bearing, distance) {
  const φ1 = lat * Math.PI / 180, λ1 = lon * Math.PI / 180, θ = bearing * Math.PI / 180;
  const δ = distance / EARTH_RADIUS;
  const sinφ2 = Math.sin(φ1) * Math.cos(δ) + Math.cos(φ1) * Math.sin(δ) * Math.cos(θ);
  const φ2 = Math.asin(Math.max(-1, Math.min(1, sinφ2)));
  const λ2 = λ1 + Math.atan2(Math.sin(θ) * Math.sin(δ) * Math.cos(φ1), Math.cos(δ) - Math.sin(φ1) * sinφ2);
  return [((λ2 * 180 / Math.PI + 540) % 360) - 180, φ2 * 180 / Math.PI];
}

// A circle of `radius` metres as a ring of [lon, lat], `n` points (closed implicitly).
export function circleRing(lon, lat, radius, n = 96) {
  const ring = [];
  for (let i = 0; i < n; i++) ring.push(destination(lon, lat, (360 * i) / n, radius));
  return ring;
}

// Great-circle distance (m) between two points (haversine).
export function distance(lon1, lat1, lon2, lat2) {
  const r = Math.PI / 180;
  const a = Math.sin((lat2 - lat1) * r / 2) ** 2 +
    Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin((lon2 - lon1) * r / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(a)));
}

// Projects a ring of [lon, lat] to a flat Float64Array [u0, v0, u1, v1, …]; longitudes are
// unwrapped along the ring so that a ring crossing the antimeridian stays in one piece.
export function projectRing(ring) {
  const out = new Float64Array(ring.length * 2);
  let prevLon = ring.length ? ring[0][0] : 0;
  for (let i = 0; i < ring.length; i++) {
    let lon = ring[i][0];
    while (lon - prevLon > 180) lon -= 360;
    while (lon - prevLon < -180) lon += 360;
    prevLon = lon;
    const [u, v] = project(lon, ring[i][1]);
    out[2 * i] = u; out[2 * i + 1] = v;
  }
  return out;
}

// Bounds of flat rings in unit coordinates: [minU, minV, maxU, maxV].
export function ringsBounds(rings) {
  let a = Infinity, b = Infinity, c = -Infinity, d = -Infinity;
  for (const r of rings) {
    for (let i = 0; i < r.length; i += 2) {
      if (r[i] < a) a = r[i]; if (r[i] > c) c = r[i];
      if (r[i + 1] < b) b = r[i + 1]; if (r[i + 1] > d) d = r[i + 1];
    }
  }
  return [a, b, c, d];
}

// Even-odd point-in-rings test in unit coordinates (holes are rings too).
export function insideRings(u, v, rings) {
  let inside = false;
  for (const r of rings) {
    const n = r.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = r[2 * i], yi = r[2 * i + 1], xj = r[2 * j], yj = r[2 * j + 1];
      if ((yi > v) !== (yj > v) && u < ((xj - xi) * (v - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

// A "nice" scale-bar length (1, 2 or 5 × 10^k metres) no longer than `maxMetres`.
export function niceLength(maxMetres) {
  const p = Math.pow(10, Math.floor(Math.log10(maxMetres)));
  for (const m of [5, 2, 1]) if (m * p <= maxMetres) return m * p;
  return p;
}

export function formatDistance(m) {
  if (m >= 1000) return `${+(m / 1000).toFixed(m >= 10000 ? 0 : 1)} km`;
  return `${Math.round(m)} m`;
}
