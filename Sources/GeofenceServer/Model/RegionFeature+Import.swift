import GeoFormats
import Geofencing
import RegionPlanner

extension RegionJSON {
    /// Reads a bulk import (a GeoJSON FeatureCollection, the CLI's format) with GeoFormats'
    /// ``GeoJSONRegionReader``, then checks each region as the engine will (polygon rings,
    /// sizes). Errors are ``Problem``s naming the field, e.g. `features[4].properties.radius`.
    package static func regions(importing body: ServerJSON) throws(Problem) -> [Region] {
        guard case .string("FeatureCollection")? = body["type"] else {
            throw Problem.badRequest(field: "type", detail: "type must be \"FeatureCollection\"")
        }
        if case .array(let raw)? = body["features"] {
            for (i, f) in raw.enumerated() {
                if let given = f["id"] { try checkFeatureID(given, field: "features[\(i)].id") }
                if case .object(let props)? = f["properties"], let given = props["id"] {
                    try checkFeatureID(given, field: "features[\(i)].properties.id")
                }
            }
        }
        let features: [RegionFeature]
        do { features = try GeoJSONRegionReader.read(document: body) } catch { throw problem(error) }
        var out: [Region] = []
        out.reserveCapacity(features.count)
        for (i, raw) in features.enumerated() {
            let f = try normalizingIDs(
                raw, idField: "features[\(i)].properties.id", parentField: "features[\(i)].properties.parent")
            let r = region(f)
            do { try r.validate() } catch {
                if case .invalidRegion(_, let field, let reason) = error {
                    throw Problem.badRequest(
                        field: "features[\(i)].\(geoJSONField(field))", detail: "region \"\(f.id)\": \(field) \(reason)"
                    )
                }
                throw Problem.badRequest(field: "features[\(i)]", detail: "\(error)")
            }
            out.append(r)
        }
        return out
    }

    /// The engine's region for a GeoFormats feature (RegionPlanner's `Region(feature:)`, the
    /// one conversion). The CLI uses it too, so a file gives the same regions to `simulate`
    /// and to the server's bulk import.
    package static func region(_ f: RegionFeature) -> Region { Region(feature: f) }

    /// A reader error as a 400 problem naming the JSON path of the bad value.
    static func problem(_ error: GeoJSONError, single: Bool = false) -> Problem {
        switch error {
        case .invalidFeature(let i, let p):
            let f = single ? "" : "features[\(i)]"
            func join(_ f: String, _ rest: String) -> String { f.isEmpty ? rest : "\(f).\(rest)" }
            let field: String
            switch p {
            case .notAFeature: field = join(f, "type")
            case .missingGeometry: field = join(f, "geometry")
            case .unsupportedGeometry: field = join(f, "geometry.type")
            case .missingID, .invalidID, .emptyID: field = join(f, "properties.id")
            case .missingRadius, .invalidRadius, .radiusTooLarge: field = join(f, "properties.radius")
            case .invalidProperty(let name, _):
                field = name == "properties" ? join(f, "properties") : join(f, "properties.\(name)")
            case .invalidDwell: field = join(f, "properties.dwell")
            case .invalidInitialTrigger: field = join(f, "properties.initialTrigger")
            case .invalidParent: field = join(f, "properties.parent")
            case .invalidSource: field = join(f, "properties.source")
            case .invalidCoordinates(let path, _), .ringNotClosed(let path), .ringTooShort(let path, _):
                field = join(f, "geometry.\(path)")
            case .coordinateOutOfRange(let path, let latitude, _):
                field = join(f, "geometry.\(path)[\((-90.0...90.0).contains(latitude) ? 0 : 1)]")
            }
            return Problem.badRequest(field: field, detail: single ? "\(p)" : "\(f): \(p)")
        case .duplicateID(let id, let first, let second):
            return Problem.badRequest(
                field: "features[\(second)].properties.id",
                detail: "region id \"\(id)\" appears more than once (features \(first) and \(second))")
        case .invalidDocument(let why):
            return Problem.badRequest(field: "features", detail: "not a GeoJSON FeatureCollection: \(why)")
        default:
            return Problem.badRequest(field: "body", detail: "\(error)")
        }
    }
}

extension RegionJSON {
    /// The GeoJSON path of a field named by ``Region/validate()`` (`exterior`,
    /// `polygons[1].holes[0][3].latitude`, `radius`, …), relative to the feature.
    static func geoJSONField(_ field: String) -> String {
        var rest = Substring(field)
        var path = "geometry.coordinates"
        if rest.hasPrefix("polygons["), let close = rest.firstIndex(of: "]") {
            path += rest[rest.index(rest.startIndex, offsetBy: 8)...close]
            rest = rest[rest.index(after: close)...].drop { $0 == "." }
        }
        if rest.hasPrefix("exterior") {
            return path + "[0]" + ringTail(rest.dropFirst(8))
        }
        if rest.hasPrefix("holes["), let close = rest.firstIndex(of: "]"),
            let k = Int(rest[rest.index(rest.startIndex, offsetBy: 6)..<close])
        {
            return path + "[\(k + 1)]" + ringTail(rest[rest.index(after: close)...])
        }
        switch rest {
        case "radius", "dwell": return "properties.\(rest)"
        case "identifier": return "properties.id"
        case "polygons": return "geometry.coordinates"
        default: return rest.hasPrefix("center") ? "geometry.coordinates" : "geometry"
        }
    }

    /// `[3].latitude` → `[3][1]`, `[3].longitude` → `[3][0]`, anything else kept.
    private static func ringTail(_ tail: Substring) -> String {
        if tail.hasSuffix(".latitude") { return String(tail.dropLast(9)) + "[1]" }
        if tail.hasSuffix(".longitude") { return String(tail.dropLast(10)) + "[0]" }
        return String(tail)
    }
}
