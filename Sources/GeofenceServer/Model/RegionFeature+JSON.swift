import Foundation
import Geodesy
import Geofencing

/// Converts between GeoJSON (RFC 7946) features and engine ``Region``s, in the format of the
/// command-line tool (docs/architecture.md): a circle is a `Point` feature with
/// `properties.radius` (metres), a polygon a `Polygon` or `MultiPolygon` feature; the region
/// id is `properties.id` (or the feature's `id`); optional `notifyOnEntry`, `notifyOnExit`
/// (booleans) and `dwell` (seconds). Any other property is kept as string metadata.
///
/// Errors are ``Problem``s naming the field, e.g. `features[4].geometry.coordinates[1]`.
package enum RegionJSON {
    static let reservedKeys: Set<String> = ["id", "radius", "notifyOnEntry", "notifyOnExit", "dwell"]

    /// Reads one feature. `overrideID` (from the URL) wins over the body's id.
    package static func region(from value: ServerJSON, path: String, overrideID: String? = nil) throws(Problem) -> Region {
        let f = try JSONObjectReader(value, path: path)
        if let type = try f.optionalString("type"), type != "Feature" {
            throw Problem.badRequest(field: f.name("type"), detail: "\(f.name("type")) must be \"Feature\", not \"\(type)\"")
        }
        let props = try f.has("properties") ? JSONObjectReader(f.fields["properties"]!, path: f.name("properties"))
                                            : JSONObjectReader(.object([:]), path: f.name("properties"))
        var id = overrideID
        if id == nil { id = try props.optionalString("id") }
        if id == nil, let fid = f.fields["id"] {
            switch fid {
            case .string(let s): id = s
            case .number(let n): id = n == n.rounded() ? String(Int(n)) : String(n)
            default: break
            }
        }
        guard let identifier = id, !identifier.isEmpty else {
            throw Problem.badRequest(field: props.name("id"), detail: "\(props.name("id")) is required (a non-empty string)")
        }
        guard identifier.utf8.count <= 256 else {
            throw Problem.badRequest(field: props.name("id"), detail: "\(props.name("id")) is longer than 256 bytes")
        }
        guard f.has("geometry") else {
            throw Problem.badRequest(field: f.name("geometry"), detail: "\(f.name("geometry")) is required")
        }
        let g = try JSONObjectReader(f.fields["geometry"]!, path: f.name("geometry"))
        let gtype = try g.string("type")
        let coords = g.name("coordinates")
        let shape: RegionShape
        switch gtype {
        case "Point":
            let c = try coordinate(try g.fields["coordinates"].orMissing(coords), path: coords)
            let radius = try props.number("radius")
            guard radius.isFinite, radius > 0, radius <= Region.maximumRadius else {
                throw Problem.badRequest(field: props.name("radius"),
                                         detail: "\(props.name("radius")) \(radius) must be in (0, \(Int(Region.maximumRadius))] metres")
            }
            shape = .circle(center: c, radius: radius)
        case "Polygon":
            shape = .polygon(try polygon(try g.fields["coordinates"].orMissing(coords), path: coords))
        case "MultiPolygon":
            guard case .array(let parts) = try g.fields["coordinates"].orMissing(coords) else {
                throw Problem.badRequest(field: coords, detail: "\(coords) must be an array of polygons")
            }
            shape = .multiPolygon(try parts.enumerated().map { pair throws(Problem) in try polygon(pair.element, path: "\(coords)[\(pair.offset)]") })
        default:
            throw Problem.badRequest(field: g.name("type"),
                                     detail: "\(g.name("type")) \"\(gtype)\" is not supported (Point with radius, Polygon, MultiPolygon)")
        }
        var dwell: TimeInterval? = nil
        if let d = try props.optionalNumber("dwell") {
            guard d.isFinite, d >= 0 else {
                throw Problem.badRequest(field: props.name("dwell"), detail: "\(props.name("dwell")) must be a non-negative number of seconds")
            }
            dwell = d
        }
        var metadata: [String: String] = [:]
        for (k, v) in props.fields where !reservedKeys.contains(k) {
            switch v {
            case .string(let s): metadata[k] = s
            case .null: continue
            default: metadata[k] = String(decoding: v.encoded(), as: UTF8.self)
            }
        }
        let region = Region(identifier: identifier, shape: shape,
                            notifyOnEntry: try props.optionalBool("notifyOnEntry") ?? true,
                            notifyOnExit: try props.optionalBool("notifyOnExit") ?? true,
                            dwell: dwell, metadata: metadata)
        do { try region.validate() } catch {
            if case let .invalidRegion(_, field, reason) = error {
                throw Problem.badRequest(field: "\(path.isEmpty ? "" : path + ".")\(field)", detail: "region \"\(identifier)\": \(field) \(reason)")
            }
            throw Problem.badRequest(field: path.isEmpty ? "body" : path, detail: "\(error)")
        }
        return region
    }

    static func coordinate(_ value: ServerJSON, path: String) throws(Problem) -> Coordinate {
        guard case .array(let a) = value, a.count >= 2, case .number(let lon) = a[0], case .number(let lat) = a[1] else {
            throw Problem.badRequest(field: path, detail: "\(path) must be a [longitude, latitude] array of numbers")
        }
        guard (-180.0...180.0).contains(lon) else {
            throw Problem.badRequest(field: "\(path)[0]", detail: "\(path)[0] longitude \(lon) is outside [-180, 180]")
        }
        guard (-90.0...90.0).contains(lat) else {
            throw Problem.badRequest(field: "\(path)[1]", detail: "\(path)[1] latitude \(lat) is outside [-90, 90]")
        }
        return Coordinate(uncheckedLatitude: lat, longitude: lon)
    }

    static func polygon(_ value: ServerJSON, path: String) throws(Problem) -> Polygon {
        guard case .array(let rings) = value, !rings.isEmpty else {
            throw Problem.badRequest(field: path, detail: "\(path) must be a non-empty array of linear rings")
        }
        var parsed: [[Coordinate]] = []
        for (r, ring) in rings.enumerated() {
            guard case .array(let pts) = ring, pts.count >= 4 else {
                throw Problem.badRequest(field: "\(path)[\(r)]", detail: "\(path)[\(r)] must be a ring of at least 4 positions")
            }
            var out: [Coordinate] = []
            out.reserveCapacity(pts.count)
            for (i, p) in pts.enumerated() { out.append(try coordinate(p, path: "\(path)[\(r)][\(i)]")) }
            parsed.append(out)
        }
        return Polygon(exterior: parsed[0], holes: Array(parsed.dropFirst()))
    }

    /// The canonical GeoJSON feature for `region` (what the API returns and stores).
    package static func feature(_ region: Region) -> ServerJSON {
        func pos(_ c: Coordinate) -> ServerJSON { .array([.number(c.longitude), .number(c.latitude)]) }
        func poly(_ p: Polygon) -> ServerJSON { .array(([p.exterior] + p.holes).map { .array($0.map(pos)) }) }
        var props: [String: ServerJSON] = ["id": .string(region.identifier)]
        let geometry: ServerJSON
        switch region.shape {
        case let .circle(center, radius):
            geometry = .object(["type": .string("Point"), "coordinates": pos(center)])
            props["radius"] = .number(radius)
        case let .polygon(p):
            geometry = .object(["type": .string("Polygon"), "coordinates": poly(p)])
        case let .multiPolygon(ps):
            geometry = .object(["type": .string("MultiPolygon"), "coordinates": .array(ps.map(poly))])
        }
        if !region.notifyOnEntry { props["notifyOnEntry"] = .bool(false) }
        if !region.notifyOnExit { props["notifyOnExit"] = .bool(false) }
        if let d = region.dwell { props["dwell"] = .number(d) }
        for (k, v) in region.metadata where props[k] == nil { props[k] = .string(v) }
        return .object(["type": .string("Feature"), "id": .string(region.identifier),
                        "geometry": geometry, "properties": .object(props)])
    }
}

extension Optional where Wrapped == ServerJSON {
    func orMissing(_ path: String) throws(Problem) -> ServerJSON {
        guard let v = self else { throw Problem.badRequest(field: path, detail: "\(path) is required") }
        return v
    }
}
