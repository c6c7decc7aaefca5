import Foundation
import Geofencing

/// What a simulation run did, for the summary on standard error.
public struct SimulationSummary: Sendable, Hashable {
    /// One rejected record or fix.
    public struct Rejection: Sendable, Hashable, CustomStringConvertible {
        /// The track's file name.
        public var track: String
        /// Where in the file: `"line 7"`, `"point 12"`, `"feature 2, point 5"`.
        public var position: String
        public var reason: String
        public var description: String { "\(track): \(position): \(reason)" }
    }

    /// Positions read from all tracks (good or not, parse failures excluded).
    public var fixesRead = 0
    /// Records rejected (unreadable lines, invalid or out-of-order fixes).
    public var fixesRejected = 0
    /// The first few rejections (at most ``Simulation/keptRejections``), in order.
    public var firstRejections: [Rejection] = []
    /// Events written, by kind.
    public var eventsByKind: [TransitionEvent.Kind: Int] = [:]
    /// Regions loaded.
    public var regionCount = 0
    /// Subjects (tracks).
    public var subjects: [String] = []

    /// Total events written.
    public var eventCount: Int { eventsByKind.values.reduce(0, +) }

    /// Counts one rejected record, keeping the first ``Simulation/keptRejections`` of them.
    mutating func reject(track: String, position: String, reason: String) {
        fixesRejected += 1
        if firstRejections.count < Simulation.keptRejections {
            firstRejections.append(Rejection(track: track, position: position, reason: reason))
        }
    }

    public init() {}

    /// The stderr summary: counts, the first rejections, and `wallSeconds` when given.
    public func report(wallSeconds: Double?) -> String {
        var s = "geofence simulate: \(subjects.count) track\(subjects.count == 1 ? "" : "s"), "
        s += "\(regionCount) region\(regionCount == 1 ? "" : "s"), \(fixesRead) fixes read, "
        s += "\(fixesRejected) rejected, \(eventCount) event\(eventCount == 1 ? "" : "s")"
        let kinds = TransitionEvent.Kind.allCases.compactMap { k in
            eventsByKind[k].map { "\($0) \(k.rawValue)" }
        }
        if !kinds.isEmpty { s += " (" + kinds.joined(separator: ", ") + ")" }
        if let w = wallSeconds {
            s += String(format: " in %.2f s", w)
            if w > 0, fixesRead > 0 { s += String(format: " (%.0f fixes/s)", Double(fixesRead) / w) }
        }
        s += "\n"
        for r in firstRejections { s += "  rejected \(r)\n" }
        if fixesRejected > firstRejections.count {
            s += "  … and \(fixesRejected - firstRejections.count) more rejected\n"
        }
        return s
    }
}
