// Module GeoFormats: see docs/architecture.md.
