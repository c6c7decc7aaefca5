// Module RegionMonitoring: see docs/architecture.md.
