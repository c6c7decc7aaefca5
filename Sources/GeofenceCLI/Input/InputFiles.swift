import Foundation
import GeoFormats
import Geodesy
import Geofencing

/// Opens the command's input files: regions (GeoJSON) and tracks (format from content).
public enum InputFiles {
    /// Opens a track file, detecting its format (GPX, NMEA, CSV, GeoJSON) from its content.
    /// - Throws: ``InputError/cannotOpen(path:reason:)`` when the file cannot be opened.
    public static func openTrack(path: String) throws(InputError) -> (format: String, source: any TrackSource) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .cannotOpen(path: path, reason: "is a directory")
        }
        let reader: TrackReader
        do {
            reader = try TrackReader(path: path)
        } catch {
            if case .unreadable(let why) = error.reason {
                let prefix = path + ": "
                throw .cannotOpen(path: path, reason: why.hasPrefix(prefix) ? String(why.dropFirst(prefix.count)) : why)
            }
            throw .malformed(path: path, position: error.position.description, reason: error.reason.description)
        }
        return (reader.format?.rawValue ?? "empty", GeoFormatsTrackSource(reader: reader, path: path))
    }

    /// Reads a GeoJSON FeatureCollection of regions: `Point` features with `properties.id`
    /// and `properties.radius` (metres) are circles; `Polygon` / `MultiPolygon` features with
    /// `properties.id` are polygons. `notifyOnEntry`, `notifyOnExit`, `dwell` (seconds) are
    /// read; every other property is kept as metadata (as text).
    /// - Throws: ``InputError`` naming the feature at fault.
    public static func loadRegions(path: String) throws(InputError) -> [Region] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .cannotOpen(path: path, reason: (error as NSError).localizedDescription)
        }
        return try regions(fromGeoJSON: data, path: path)
    }

    /// ``loadRegions(path:)`` from bytes already read.
    public static func regions(fromGeoJSON data: Data, path: String) throws(InputError) -> [Region] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .malformed(path: path, position: "document", reason: "not valid JSON")
        }
        guard let object = root as? [String: Any], object["type"] as? String == "FeatureCollection",
              let features = object["features"] as? [Any] else {
            throw .malformed(path: path, position: "document", reason: "not a GeoJSON FeatureCollection")
        }
        var out: [Region] = []
        for (k, any) in features.enumerated() {
            func bad(_ reason: String) -> InputError { .malformed(path: path, position: "feature \(k)", reason: reason) }
            guard let feature = any as? [String: Any], let geometry = feature["geometry"] as? [String: Any],
                  let type = geometry["type"] as? String else { throw bad("has no geometry") }
            let props = feature["properties"] as? [String: Any] ?? [:]
            guard let id = (props["id"] as? String) ?? (props["id"] as? NSNumber)?.stringValue
                    ?? (feature["id"] as? String) else { throw bad("has no properties.id") }
            let shape: RegionShape
            switch type {
            case "Point":
                guard let c = geometry["coordinates"] as? [Double], c.count >= 2 else { throw bad("Point has no coordinates") }
                guard let r = (props["radius"] as? NSNumber)?.doubleValue else { throw bad("circle \"\(id)\" has no properties.radius") }
                shape = .circle(center: try coordinate(c, bad), radius: r)
            case "Polygon":
                guard let rings = geometry["coordinates"] as? [[[Double]]], !rings.isEmpty else { throw bad("Polygon has no rings") }
                shape = .polygon(try polygon(rings, bad))
            case "MultiPolygon":
                guard let polys = geometry["coordinates"] as? [[[[Double]]]], !polys.isEmpty else { throw bad("MultiPolygon has no polygons") }
                shape = .multiPolygon(try polys.map { p throws(InputError) in try polygon(p, bad) })
            default:
                throw bad("geometry \(type) is not a region (Point with radius, Polygon, MultiPolygon)")
            }
            var metadata: [String: String] = [:]
            for (key, value) in props where !["id", "radius", "notifyOnEntry", "notifyOnExit", "dwell"].contains(key) {
                if let s = value as? String { metadata[key] = s } else if let n = value as? NSNumber { metadata[key] = n.stringValue }
            }
            let region = Region(identifier: id, shape: shape,
                                notifyOnEntry: (props["notifyOnEntry"] as? Bool) ?? true,
                                notifyOnExit: (props["notifyOnExit"] as? Bool) ?? true,
                                dwell: (props["dwell"] as? NSNumber)?.doubleValue, metadata: metadata)
            do { try region.validate() } catch { throw bad(error.description) }
            out.append(region)
        }
        return out
    }

    private static func coordinate(_ c: [Double], _ bad: (String) -> InputError) throws(InputError) -> Coordinate {
        guard c.count >= 2 else { throw bad("a position needs longitude and latitude") }
        do { return try Coordinate(latitude: c[1], longitude: c[0]) } catch { throw bad(error.description) }
    }

    private static func polygon(_ rings: [[[Double]]], _ bad: (String) -> InputError) throws(InputError) -> Polygon {
        var out: [[Coordinate]] = []
        for ring in rings { out.append(try ring.map { p throws(InputError) in try coordinate(p, bad) }) }
        return Polygon(exterior: out[0], holes: Array(out.dropFirst()))
    }
}
