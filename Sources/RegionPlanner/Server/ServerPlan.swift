import Foundation
import GeoFormats
import Geodesy
import Geofencing

/// A device plan as the server sends it (`GET /v1/devices/{id}/plan`, docs/server.md): what
/// to monitor around ``center``, and when to ask again.
public struct ServerPlan: Sendable, Hashable {
    /// One region of the plan.
    public struct Entry: Sendable, Hashable {
        /// The region with its trigger strategy (`notifyOnEntry`, `notifyOnExit`, `dwell`,
        /// `initialTrigger`), tier `parent` and `source`.
        public var region: Region
        /// Whether other regions are its tier children: entering or leaving it changes the plan.
        public var hasChildren: Bool
    }

    /// The point the plan was made at.
    public var center: Coordinate?
    /// Nearest first.
    public var regions: [Entry]
    /// Ask again after leaving a circle of this radius around ``center`` (metres); `nil` when
    /// monitoring is off.
    public var replanRadius: Double?
    /// The server-side switch: `false` means monitor nothing.
    public var monitoringEnabled: Bool
    /// How long the plan may be kept before revalidating it (seconds).
    public var maxAge: TimeInterval
    /// Whether the server could size the circle so that no region is missed (docs/planner.md).
    public var guaranteed: Bool
    /// The document the plan was read from (`.null` for a plan made in code): what a
    /// ``ServerPlanFollower`` saves to continue after a relaunch.
    public var document: JSONValue = .null
}

/// Why a plan could not be fetched or read.
public enum PlanSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The transport failed (connection refused, timeout, …).
    case transport(String)
    /// The server answered with an unexpected status (with the problem's detail, if any).
    case status(Int, String)
    /// The body is not a plan (the field at fault).
    case malformed(String)
    /// The follower's state could not be saved or read (``FollowerStateStore``).
    case storage(String)

    public var description: String {
        switch self {
        case .transport(let why): "plan request failed: \(why)"
        case .status(let code, let detail): "plan request answered \(code)\(detail.isEmpty ? "" : ": \(detail)")"
        case .malformed(let why): "plan answer is malformed: \(why)"
        case .storage(let why): "follower state: \(why)"
        }
    }
}

extension ServerPlan {
    /// Reads a plan document; the regions with GeoFormats' reader (the server's own rules).
    public init(json: JSONValue) throws(PlanSourceError) {
        guard case .bool(let enabled)? = json["monitoringEnabled"] else { throw .malformed("monitoringEnabled") }
        guard case .number(let maxAge)? = json["maxAgeSeconds"], maxAge >= 0, maxAge.isFinite else {
            throw .malformed("maxAgeSeconds")
        }
        var center: Coordinate? = nil
        if case .object? = json["center"] {
            guard case .number(let lat)? = json["center"]?["latitude"],
                case .number(let lon)? = json["center"]?["longitude"],
                let c = try? Coordinate(latitude: lat, longitude: lon)
            else { throw .malformed("center") }
            center = c
        }
        var radius: Double? = nil
        switch json["replanRadiusMeters"] {
        case .number(let r)? where r > 0: radius = r
        case .null?, nil: radius = nil
        default: throw .malformed("replanRadiusMeters")
        }
        // Monitoring on, the phone needs the circle: a plan without one could never be left.
        if enabled, center == nil { throw .malformed("center") }
        if enabled, radius == nil { throw .malformed("replanRadiusMeters") }
        guard case .array(let items)? = json["regions"] else { throw .malformed("regions") }
        var entries: [Entry] = []
        for (i, item) in items.enumerated() {
            let features: [RegionFeature]
            do { features = try GeoJSONRegionReader.read(document: item) } catch {
                throw .malformed("regions[\(i)]: \(error)")
            }
            guard features.count == 1 else { throw .malformed("regions[\(i)]") }
            var feature = features[0]
            feature.metadata["distanceMeters"] = nil
            feature.metadata["hasChildren"] = nil
            let region = Region(feature: feature)
            do { try region.validate() } catch { throw .malformed("regions[\(i)]: \(error)") }
            entries.append(Entry(region: region, hasChildren: item["hasChildren"] == .bool(true)))
        }
        let guaranteed = json["guaranteed"] == .bool(true)
        self.init(
            center: center, regions: enabled ? entries : [], replanRadius: enabled ? radius : nil,
            monitoringEnabled: enabled, maxAge: maxAge, guaranteed: guaranteed, document: json)
    }
}

extension Region {
    /// The identifier a plan region is registered under: `source + "." + id` (the plain id
    /// without a source), RegionPlanner's per-source prefix.
    var prefixedIdentifier: String { (source.map { $0 + "." } ?? "") + identifier }
}
