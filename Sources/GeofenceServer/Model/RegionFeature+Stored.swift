import Foundation
import GeoFormats
import Geodesy
import Geofencing
import RegionPlanner

extension RegionJSON {
    /// Decodes a region the store holds (the canonical feature ``feature(_:)`` wrote when it
    /// was accepted). Deliberately lenient: no identifier or geometry rule is applied here, so
    /// a region accepted under older, looser rules still loads as it was stored; the engine
    /// validates when the region is added (``TenantRuntime/replay(_:policy:)`` sets aside a
    /// stored region that no longer passes, with a log line). Throws only on a document this
    /// server could never have written.
    package static func storedRegion(from value: ServerJSON) throws(Problem) -> Region {
        func bad(_ why: String) -> Problem { Problem.badRequest(field: "journal", detail: "stored region: \(why)") }
        guard case .object(let props)? = value["properties"], case .string(let id)? = props["id"],
            case .object(let g)? = value["geometry"], case .string(let type)? = g["type"], let coords = g["coordinates"]
        else { throw bad("not a feature with properties.id and geometry") }
        func position(_ v: ServerJSON) throws(Problem) -> Coordinate {
            guard case .array(let a) = v, a.count >= 2, case .number(let lon) = a[0], case .number(let lat) = a[1]
            else {
                throw bad("a position is not [longitude, latitude]")
            }
            return Coordinate(uncheckedLatitude: lat, longitude: lon)
        }
        func polygon(_ v: ServerJSON) throws(Problem) -> Polygon {
            guard case .array(let rings) = v, !rings.isEmpty else { throw bad("a polygon has no rings") }
            var parsed: [[Coordinate]] = []
            for ring in rings {
                guard case .array(let pts) = ring else { throw bad("a ring is not an array") }
                var out: [Coordinate] = []
                for p in pts { out.append(try position(p)) }
                parsed.append(out)
            }
            return Polygon(exterior: parsed[0], holes: Array(parsed.dropFirst()))
        }
        let shape: RegionShape
        switch type {
        case "Point":
            guard case .number(let r)? = props["radius"] else { throw bad("a circle without radius") }
            shape = .circle(center: try position(coords), radius: r)
        case "Polygon":
            shape = .polygon(try polygon(coords))
        case "MultiPolygon":
            guard case .array(let parts) = coords else { throw bad("a multipolygon is not an array") }
            var ps: [Polygon] = []
            for p in parts { ps.append(try polygon(p)) }
            shape = .multiPolygon(ps)
        default:
            throw bad("unknown geometry \(type)")
        }
        var metadata: [String: String] = [:]
        for (k, v) in props
        where !["id", "radius", "notifyOnEntry", "notifyOnExit", "dwell", "initialTrigger"].contains(k) {
            if case .string(let s) = v { metadata[k] = s } else if v != .null { metadata[k] = v.description }
        }
        func flag(_ k: String) -> Bool { if case .bool(let b)? = props[k] { b } else { true } }
        var dwell: Double? = nil
        if case .number(let d)? = props["dwell"] { dwell = d }
        var trigger: InitialTrigger = []
        if case .array(let names)? = props["initialTrigger"] {
            var set: Set<RegionTrigger> = []
            for case .string(let n) in names { if let t = RegionTrigger(rawValue: n) { set.insert(t) } }
            trigger = InitialTrigger(set)
        }
        return Region(
            identifier: id, shape: shape, notifyOnEntry: flag("notifyOnEntry"), notifyOnExit: flag("notifyOnExit"),
            dwell: dwell, initialTrigger: trigger, metadata: metadata)
    }
}
