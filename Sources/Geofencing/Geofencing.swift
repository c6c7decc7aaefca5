// Module Geofencing: see docs/architecture.md.
