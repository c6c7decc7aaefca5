import Foundation
import GeoFormats
import Geodesy
import GeofenceServer
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

    /// Reads a GeoJSON FeatureCollection of regions (GeoFormats' ``GeoJSONRegionReader``):
    /// `Point` features with `properties.id` and `properties.radius` (metres) are circles;
    /// `Polygon` / `MultiPolygon` features with `properties.id` are polygons.
    /// `notifyOnEntry`, `notifyOnExit`, `dwell` (seconds) are read; every other property is
    /// kept as metadata (strings as they are, numbers and booleans as text, anything else as
    /// compact JSON).
    /// A large FeatureCollection is parsed on `threads` threads (the same regions, or the
    /// same error: ``GeoJSONRegionReader/read(path:threads:)``).
    /// - Throws: ``InputError`` naming the file and the feature (or line) at fault.
    public static func loadRegions(path: String, threads: Int = 1) throws(InputError) -> [Region] {
        let features: [RegionFeature]
        do {
            features = try GeoJSONRegionReader.read(path: path, threads: threads)
        } catch {
            throw inputError(error, path: path)
        }
        return features.map(RegionJSON.region)
    }

    /// ``loadRegions(path:)`` for GeoJSON text already in memory; `path` names it in errors.
    public static func regions(fromGeoJSON text: String, path: String) throws(InputError) -> [Region] {
        do {
            return try GeoJSONRegionReader.read(string: text).map(RegionJSON.region)
        } catch {
            throw inputError(error, path: path)
        }
    }

    static func inputError(_ error: GeoJSONError, path: String) -> InputError {
        switch error {
        case .unreadable(let why):
            let prefix = path + ": "
            return .cannotOpen(path: path, reason: why.hasPrefix(prefix) ? String(why.dropFirst(prefix.count)) : why)
        case .emptyInput:
            return .malformed(path: path, position: "input", reason: "the regions file is empty")
        case .invalidJSON(let line, let column, let reason):
            return .malformed(path: path, position: "line \(line), column \(column)", reason: "invalid JSON: \(reason)")
        case .invalidDocument(let why):
            return .malformed(path: path, position: "document", reason: "not a GeoJSON FeatureCollection: \(why)")
        case .invalidFeature(let index, let problem):
            return .malformed(path: path, position: "feature \(index)", reason: problem.description)
        case .duplicateID(let id, let first, let second):
            return .malformed(
                path: path, position: "feature \(second)", reason: "duplicate id '\(id)' (also feature \(first))")
        }
    }
}
