// Stub of CLMonitor and CLServiceSession (see CLLocation.swift for the rules).
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/clcondition-swift.protocol
public protocol CLCondition: Sendable {}

/// https://developer.apple.com/documentation/corelocation/clmonitoringstate
/// (imported from C as a struct: `CLMonitor.Event.State` is this type)
public struct CLMonitoringState: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/unknown
    public static let unknown = CLMonitoringState(rawValue: 0)
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/satisfied
    public static let satisfied = CLMonitoringState(rawValue: 1)
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/unsatisfied
    public static let unsatisfied = CLMonitoringState(rawValue: 2)
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/unmonitored
    @available(iOS 17.2, macOS 14.2, *)
    public static let unmonitored = CLMonitoringState(rawValue: 3)
}

/// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v
@available(iOS 17, macOS 14, *)
public actor CLMonitor {
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/init(_:)
    public init(_ name: String) async { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/identifiers
    public var identifiers: [String] { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/events-swift.property
    public final let events: CLMonitor.Events
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/add(_:identifier:)
    public func add(_ Condition: any CLCondition, identifier: String) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/add(_:identifier:assuming:)
    public func add(_ condition: any CLCondition, identifier: String, assuming state: CLMonitor.Event.State) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/remove(_:)
    public func remove(_ identifier: String) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record(for:)
    public func record(for identifier: String) -> CLMonitor.Record? { stub() }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/events-swift.struct
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = CLMonitor.Event
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> CLMonitor.Event? { stub() }
        }
        public func makeAsyncIterator() -> Iterator { stub() }
    }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event
    public struct Event: Sendable {
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/state-swift.typealias
        public typealias State = CLMonitoringState
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/identifier
        public var identifier: String { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/state-swift.property
        public var state: CLMonitor.Event.State { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/date
        public var date: Date { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/accuracylimited
        public var accuracyLimited: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationdenied
        public var authorizationDenied: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationdeniedglobally
        public var authorizationDeniedGlobally: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationrestricted
        public var authorizationRestricted: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/insufficientlyinuse
        public var insufficientlyInUse: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/conditionlimitexceeded
        public var conditionLimitExceeded: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/conditionunsupported
        public var conditionUnsupported: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/persistenceunavailable
        public var persistenceUnavailable: Bool { stub() }
    }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record
    public struct Record: Sendable {
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record/condition
        public let condition: any CLCondition
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record/lastevent
        public let lastEvent: CLMonitor.Event
    }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition
    public struct CircularGeographicCondition: CLCondition {
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition/init(center:radius:)
        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition/center
        public let center: CLLocationCoordinate2D
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition/radius
        public let radius: CLLocationDistance
    }
}

/// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n
@available(iOS 18, *)
@available(macOS, unavailable)
public final class CLServiceSession: Sendable {
    /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/init(authorization:)
    public init(authorization: CLServiceSession.AuthorizationRequirement) { stub() }

    /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement
    public enum AuthorizationRequirement: Hashable, Sendable {
        /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement/none
        case none
        /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement/wheninuse
        case whenInUse
        /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement/always
        case always
    }
}
