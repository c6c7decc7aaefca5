import Foundation

/// What a monitor keeps across launches: its records in the order added, and the events that
/// happened while no app instance had it open (delivered, in order, to the next one).
struct MonitorSnapshot: Sendable, Codable, Equatable {
    static let currentVersion = 1
    var version: Int = MonitorSnapshot.currentVersion
    var name: String
    var order: [String] = []
    var records: [String: MonitorRecord] = [:]
    var pending: [MonitorEvent] = []
}

/// Where monitors persist: one JSON file per monitor name in a directory (dates as seconds
/// since 2001-01-01, which round-trip exactly).
///
/// ```swift
/// let store = MonitorStore(directory: URL(filePath: "/var/lib/app/monitors"))
/// let device = SimulatedDevice(settings: s, clock: clock, store: store)
/// ```
///
/// Writes are atomic (a temporary file renamed over the old one), so a crash leaves either the
/// old or the new state. A missing file is a fresh monitor; an unreadable one is reported as
/// ``MonitoringError/storeCorrupt(name:path:reason:)`` and left untouched.
public struct MonitorStore: Sendable {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// The file holding monitor `name`.
    public func url(for name: String) -> URL {
        directory.appendingPathComponent(name + ".monitor.json")
    }

    /// Reads monitor `name`; `nil` if it was never stored.
    func load(name: String) throws(MonitoringError) -> MonitorSnapshot? {
        let url = url(for: name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .storeCorrupt(name: name, path: url.path, reason: "cannot read: \(error.localizedDescription)")
        }
        let snap: MonitorSnapshot
        do { snap = try JSONDecoder().decode(MonitorSnapshot.self, from: data) } catch {
            throw .storeCorrupt(name: name, path: url.path, reason: MonitorStore.describe(error))
        }
        guard snap.version == MonitorSnapshot.currentVersion else {
            throw .storeCorrupt(name: name, path: url.path, reason: "unsupported version \(snap.version)")
        }
        guard snap.name == name, Set(snap.order) == Set(snap.records.keys), snap.order.count == snap.records.count
        else {
            throw .storeCorrupt(name: name, path: url.path, reason: "records do not match their order list")
        }
        return snap
    }

    /// Writes atomically; returns whether it succeeded (a failure is reported to the app as
    /// the `persistenceUnavailable` diagnostic, never as a crash).
    func save(_ snapshot: MonitorSnapshot) -> Bool {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys]
            let data = try enc.encode(snapshot)
            try data.write(to: url(for: snapshot.name), options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// The file holding the location manager's regions (a name no monitor can have).
    public var appRegionsURL: URL { directory.appendingPathComponent(".locationmanager.regions.json") }

    /// Reads the location manager's regions, in registration order; `nil` if never stored.
    func loadAppRegions() throws(MonitoringError) -> [MonitoredRegion]? {
        let url = appRegionsURL
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode([MonitoredRegion].self, from: Data(contentsOf: url))
        } catch {
            throw .storeCorrupt(name: "locationManager", path: url.path, reason: MonitorStore.describe(error))
        }
    }

    /// Writes the location manager's regions atomically; returns whether it succeeded.
    func saveAppRegions(_ regions: [MonitoredRegion]) -> Bool {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys]
            try enc.encode(regions).write(to: appRegionsURL, options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// The names of the monitors stored in ``directory`` (empty if it does not exist).
    public func storedNames() -> [String] {
        let suffix = ".monitor.json"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }.sorted()
    }

    /// Deletes monitor `name`'s stored state (e.g. after ``MonitoringError/storeCorrupt(name:path:reason:)``).
    public func discard(name: String) throws {
        let u = url(for: name)
        if FileManager.default.fileExists(atPath: u.path) { try FileManager.default.removeItem(at: u) }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): "invalid JSON at \(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.keyNotFound(let k, let c): "missing field \(path(c.codingPath + [k]))"
        case DecodingError.typeMismatch(_, let c): "wrong type at \(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.valueNotFound(_, let c): "missing value at \(path(c.codingPath))"
        default: "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
