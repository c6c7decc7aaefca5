import Foundation
import GeoFormats
import Geodesy
import Geofencing
import RegionPlanner

/// Converts between GeoJSON (RFC 7946) features and engine ``Region``s, in the format of the
/// command-line tool (docs/architecture.md): a circle is a `Point` feature with
/// `properties.radius` (metres), a polygon a `Polygon` or `MultiPolygon` feature; the region
/// id is `properties.id` (or the feature's `id`); optional `notifyOnEntry`, `notifyOnExit`
/// (booleans), `dwell` (seconds), `initialTrigger` (array of `"enter"`, `"exit"`, `"dwell"`),
/// `parent` and `source` (GeoFormats' `RegionTier`; kept as the region's `parent` / `source`
/// metadata). Any other property is kept as string metadata.
///
/// Errors are ``Problem``s naming the field, e.g. `features[4].geometry.coordinates[1]`.
package enum RegionJSON {
    /// Reads one feature with GeoFormats' ``GeoJSONRegionReader`` (the reader of the bulk
    /// import and of `geofence simulate`, so the three accept exactly the same regions), then
    /// checks its id (``Identifier``) and its geometry as the engine will (``Region/validate()``).
    /// `overrideID` (from the URL of a `PUT`) wins over the body's id; a missing `type` is
    /// taken as `"Feature"`.
    package static func region(from value: ServerJSON, overrideID: String? = nil) throws(Problem) -> Region {
        guard case .object(var f) = value else {
            throw Problem.badRequest(
                field: "body", detail: "body must be a GeoJSON Feature object, not \(value.typeName)")
        }
        if f["type"] == nil { f["type"] = .string("Feature") }
        // Both places an id may be given are checked, even when one is not used (the path's
        // id wins on a PUT; properties.id wins over the feature's id), so that a bad id is never
        // silently accepted.
        if let given = f["id"] { try checkFeatureID(given, field: "id") }
        if case .object(let props)? = f["properties"], let given = props["id"] {
            try checkFeatureID(given, field: "properties.id")
        }
        if let id = overrideID {
            var props: [String: ServerJSON] = [:]
            switch f["properties"] {
            case .object(let o)?: props = o
            case nil, .null?: break
            default: throw Problem.badRequest(field: "properties", detail: "properties must be an object")
            }
            props["id"] = .string(id)
            f["properties"] = .object(props)
        }
        let features: [RegionFeature]
        do { features = try GeoJSONRegionReader.read(document: .object(f)) } catch {
            throw problem(error, single: true)
        }
        guard features.count == 1 else {
            throw Problem.badRequest(
                field: "type", detail: "body must be one GeoJSON Feature (POST /v1/regions/import takes collections)")
        }
        let region = region(try normalizingIDs(features[0], idField: overrideID == nil ? "properties.id" : "id"))
        do { try region.validate() } catch {
            if case .invalidRegion(_, let field, let reason) = error {
                throw Problem.badRequest(
                    field: geoJSONField(field), detail: "region \"\(region.identifier)\": \(field) \(reason)")
            }
            throw Problem.badRequest(field: "body", detail: "\(error)")
        }
        return region
    }

    /// `feature` with its id and parent checked and normalized (``Identifier``): the spelling
    /// the region is known by from then on.
    static func normalizingIDs(
        _ feature: RegionFeature, idField: String, parentField: String = "properties.parent"
    ) throws(Problem) -> RegionFeature {
        var f = feature
        f.id = try Identifier.check(f.id, field: idField)
        if let parent = f.parent { f.parent = try Identifier.check(parent, field: parentField) }
        return f
    }

    /// A feature id as GeoJSON allows it: a string (``Identifier``) or an integer within ±(2⁵³ − 1),
    /// taken as its decimal text.
    static func checkFeatureID(_ v: ServerJSON, field: String) throws(Problem) {
        switch v {
        case .string(let s): _ = try Identifier.check(s, field: field)
        case .number(let n) where n == n.rounded() && abs(n) < 9_007_199_254_740_992: return
        default:
            throw Problem.badRequest(
                field: field,
                detail: "\(field) must be a string id or an integer within ±(2^53 − 1), not \(v.description.prefix(40))"
            )
        }
    }

    /// The canonical GeoJSON feature for `region` (what the API returns and stores).
    package static func feature(_ region: Region) -> ServerJSON {
        func pos(_ c: Coordinate) -> ServerJSON { .array([.number(c.longitude), .number(c.latitude)]) }
        func poly(_ p: Polygon) -> ServerJSON { .array(([p.exterior] + p.holes).map { .array($0.map(pos)) }) }
        var props: [String: ServerJSON] = ["id": .string(region.identifier)]
        let geometry: ServerJSON
        switch region.shape {
        case .circle(let center, let radius):
            geometry = .object(["type": .string("Point"), "coordinates": pos(center)])
            props["radius"] = .number(radius)
        case .polygon(let p):
            geometry = .object(["type": .string("Polygon"), "coordinates": poly(p)])
        case .multiPolygon(let ps):
            geometry = .object(["type": .string("MultiPolygon"), "coordinates": .array(ps.map(poly))])
        }
        if !region.notifyOnEntry { props["notifyOnEntry"] = .bool(false) }
        if !region.notifyOnExit { props["notifyOnExit"] = .bool(false) }
        if let d = region.dwell { props["dwell"] = .number(d) }
        if !region.initialTrigger.isEmpty {
            props["initialTrigger"] = .array(region.initialTrigger.names.map { .string($0.rawValue) })
        }
        for (k, v) in region.metadata where props[k] == nil { props[k] = .string(v) }
        return .object([
            "type": .string("Feature"), "id": .string(region.identifier),
            "geometry": geometry, "properties": .object(props),
        ])
    }
}
