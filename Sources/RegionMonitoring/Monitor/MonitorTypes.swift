import Foundation
import Geodesy

/// What a ``Monitor`` watches (Core Location's `CLCondition`).
public enum MonitorCondition: Sendable, Hashable, Codable {
    /// `CLMonitor.CircularGeographicCondition`: satisfied inside the circle.
    case circular(center: Coordinate, radius: Double)
    /// Ours: satisfied inside the polygon (edges straight in longitude / latitude).
    case polygon(exterior: [Coordinate], holes: [[Coordinate]])
    /// `CLMonitor.BeaconIdentityCondition`: kept so apps can be tested against a device
    /// that cannot range beacons — it is always reported with `conditionUnsupported`.
    case beacon(uuid: String)

    var monitoredRegion: MonitoredRegion? {
        switch self {
        case .circular(let c, let r): .circle(CircularRegion(center: c, radius: r, identifier: ""))
        case .polygon(let e, let h): .polygon(PolygonRegion(exterior: e, holes: h, identifier: ""))
        case .beacon: nil
        }
    }
}

/// A condition's state (Core Location's `CLMonitor.Event.State`).
public enum MonitorState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not determined yet.
    case unknown
    /// Inside the area.
    case satisfied
    /// Outside the area.
    case unsatisfied
    /// Registered but not being monitored (limit exceeded, unsupported condition).
    case unmonitored
}

/// One thing a ``Monitor`` reports (Core Location's `CLMonitor.Event`).
///
/// `date` is when the change happened on the track (the confirming fix's time, or the end of
/// the confirmation time), never the delivery time, so an event delivered after a relaunch
/// still says when it happened. `diagnostics` tells why monitoring is degraded.
public struct MonitorEvent: Sendable, Hashable, Codable {
    public var identifier: String
    public var state: MonitorState
    public var date: Date
    public var diagnostics: DiagnosticFlags

    public init(identifier: String, state: MonitorState, date: Date, diagnostics: DiagnosticFlags = []) {
        self.identifier = identifier
        self.state = state
        self.date = date
        self.diagnostics = diagnostics
    }

    public var accuracyLimited: Bool { diagnostics.contains(.accuracyLimited) }
    public var authorizationDenied: Bool { diagnostics.contains(.authorizationDenied) }
    public var authorizationDeniedGlobally: Bool { diagnostics.contains(.authorizationDeniedGlobally) }
    public var authorizationRestricted: Bool { diagnostics.contains(.authorizationRestricted) }
    public var insufficientlyInUse: Bool { diagnostics.contains(.insufficientlyInUse) }
    public var conditionLimitExceeded: Bool { diagnostics.contains(.conditionLimitExceeded) }
    public var conditionUnsupported: Bool { diagnostics.contains(.conditionUnsupported) }
    public var persistenceUnavailable: Bool { diagnostics.contains(.persistenceUnavailable) }
}

/// A condition and its most recent event (Core Location's `CLMonitor.Record`).
public struct MonitorRecord: Sendable, Hashable, Codable {
    public var condition: MonitorCondition
    public var lastEvent: MonitorEvent

    public init(condition: MonitorCondition, lastEvent: MonitorEvent) {
        self.condition = condition
        self.lastEvent = lastEvent
    }
}
