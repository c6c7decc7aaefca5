import GeoFormats
import Geofencing

extension Region {
    /// The engine's region for a GeoJSON feature read by GeoFormats: the same shape, flags,
    /// dwell and initial trigger; `parent` and `source` go to ``Region/parent`` /
    /// ``Region/source``; other metadata values that are not strings are kept as their compact
    /// JSON text (`null`s are dropped). The one conversion used by `simulate`, the server and
    /// the phone's plan client.
    public init(feature f: RegionFeature) {
        let shape: RegionShape
        switch f.geometry {
        case .circle(let center, let radius): shape = .circle(center: center, radius: radius)
        case .polygon(let p): shape = .polygon(Polygon(exterior: p.outer, holes: p.holes))
        case .multiPolygon(let ps): shape = .multiPolygon(ps.map { Polygon(exterior: $0.outer, holes: $0.holes) })
        }
        var metadata: [String: String] = [:]
        for (k, v) in f.metadata {
            switch v {
            case .string(let s): metadata[k] = s
            case .null: continue
            default: metadata[k] = v.description
            }
        }
        self.init(
            identifier: f.id, shape: shape, notifyOnEntry: f.notifyOnEntry, notifyOnExit: f.notifyOnExit,
            dwell: f.dwell, initialTrigger: InitialTrigger(f.initialTrigger), metadata: metadata)
        parent = f.parent
        source = f.source
    }
}

extension InitialTrigger {
    /// The option set for GeoFormats' trigger names.
    public init(_ names: Set<RegionTrigger>) {
        self = []
        for n in names {
            switch n {
            case .enter: insert(.enter)
            case .exit: insert(.exit)
            case .dwell: insert(.dwell)
            }
        }
    }

    /// GeoFormats' trigger names, in writing order (enter, exit, dwell).
    public var names: [RegionTrigger] {
        RegionTrigger.allCases.filter { n in
            switch n {
            case .enter: contains(.enter)
            case .exit: contains(.exit)
            case .dwell: contains(.dwell)
            }
        }
    }
}
