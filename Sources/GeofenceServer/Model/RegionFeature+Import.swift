import GeoFormats
import Geofencing

extension RegionJSON {
    /// Reads a bulk import (a GeoJSON FeatureCollection, the CLI's format) with GeoFormats'
    /// ``GeoJSONRegionReader``, then checks each region as the engine will (polygon rings,
    /// sizes). Errors are ``Problem``s naming the field, e.g. `features[4].properties.radius`.
    package static func regions(importing body: ServerJSON) throws(Problem) -> [Region] {
        guard case .string("FeatureCollection")? = body["type"] else {
            throw Problem.badRequest(field: "type", detail: "type must be \"FeatureCollection\"")
        }
        let features: [RegionFeature]
        do { features = try GeoJSONRegionReader.read(document: body) } catch { throw problem(error) }
        var out: [Region] = []
        out.reserveCapacity(features.count)
        for (i, f) in features.enumerated() {
            guard f.id.utf8.count <= 256 else {
                throw Problem.badRequest(field: "features[\(i)].properties.id", detail: "features[\(i)].properties.id is longer than 256 bytes")
            }
            let r = region(f)
            do { try r.validate() } catch {
                if case let .invalidRegion(_, field, reason) = error {
                    throw Problem.badRequest(field: "features[\(i)].\(field)", detail: "region \"\(f.id)\": \(field) \(reason)")
                }
                throw Problem.badRequest(field: "features[\(i)]", detail: "\(error)")
            }
            out.append(r)
        }
        return out
    }

    /// The engine's region for a GeoFormats feature (metadata values other than strings are
    /// kept as their compact JSON text, as for single features). The CLI uses it too, so a
    /// file gives the same regions to `simulate` and to the server's bulk import.
    package static func region(_ f: RegionFeature) -> Region {
        let shape: RegionShape
        switch f.geometry {
        case let .circle(center, radius): shape = .circle(center: center, radius: radius)
        case let .polygon(p): shape = .polygon(Polygon(exterior: p.outer, holes: p.holes))
        case let .multiPolygon(ps): shape = .multiPolygon(ps.map { Polygon(exterior: $0.outer, holes: $0.holes) })
        }
        var metadata: [String: String] = [:]
        for (k, v) in f.metadata {
            switch v {
            case .string(let s): metadata[k] = s
            case .null: continue
            default: metadata[k] = v.description
            }
        }
        return Region(identifier: f.id, shape: shape, notifyOnEntry: f.notifyOnEntry, notifyOnExit: f.notifyOnExit,
                      dwell: f.dwell, metadata: metadata)
    }

    /// A reader error as a 400 problem naming the JSON path of the bad value.
    static func problem(_ error: GeoJSONError) -> Problem {
        switch error {
        case .invalidFeature(let i, let p):
            let f = "features[\(i)]"
            let field: String
            switch p {
            case .notAFeature: field = "\(f).type"
            case .missingGeometry: field = "\(f).geometry"
            case .unsupportedGeometry: field = "\(f).geometry.type"
            case .missingID, .invalidID, .emptyID: field = "\(f).properties.id"
            case .missingRadius, .invalidRadius, .radiusTooLarge: field = "\(f).properties.radius"
            case .invalidProperty(let name, _): field = name == "properties" ? "\(f).properties" : "\(f).properties.\(name)"
            case .invalidDwell: field = "\(f).properties.dwell"
            case .invalidCoordinates(let path, _), .ringNotClosed(let path), .ringTooShort(let path, _):
                field = "\(f).geometry.\(path)"
            case let .coordinateOutOfRange(path, latitude, _):
                field = "\(f).geometry.\(path)[\((-90.0...90.0).contains(latitude) ? 0 : 1)]"
            }
            return Problem.badRequest(field: field, detail: "\(f): \(p)")
        case let .duplicateID(id, first, second):
            return Problem.badRequest(field: "features[\(second)].properties.id",
                                      detail: "region id \"\(id)\" appears more than once (features \(first) and \(second))")
        case .invalidDocument(let why):
            return Problem.badRequest(field: "features", detail: "not a GeoJSON FeatureCollection: \(why)")
        default:
            return Problem.badRequest(field: "body", detail: "\(error)")
        }
    }
}
