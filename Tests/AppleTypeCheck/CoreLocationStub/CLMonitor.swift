// Stub of CLMonitor and its Swift types (see CLLocation.swift for the rules). The Swift
// overlay's pages are under /documentation/corelocation/clmonitor-2r51v; the Objective-C header
// is CLMonitoringEvent.h. CLMonitor is iOS 17+ / macOS 14+ and unavailable on tvOS and watchOS
// (`API_AVAILABLE(macos(14.0), ios(17.0)) API_UNAVAILABLE(watchos, tvos)`).
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/clcondition-swift.protocol — iOS 17.0+ macOS 14.0+
@available(iOS 17.0, macOS 14.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
public protocol CLCondition: Sendable {}

/// https://developer.apple.com/documentation/corelocation/clmonitoringstate (the Objective-C enum)
/// CLMonitoringEvent.h: `typedef NS_ENUM(NSUInteger, CLMonitoringState) {…} NS_REFINED_FOR_SWIFT`,
/// so Swift imports it as the open (not frozen) enum `__CLMonitoringState: UInt`, and the overlay
/// names it `CLMonitor.Event.State` (https://onestack.dev/ios-reference/CoreLocation/CLMonitor.Event.State:
/// `typealias State = __CLMonitoringState`). There is no Swift type named `CLMonitoringState`.
/// Open: a switch needs `@unknown default` (or `default`), as `.unmonitored` (iOS 17.2) showed.
@available(iOS 17.0, macOS 14.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
public enum __CLMonitoringState: UInt, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/clmonitoringstateunknown
    case unknown = 0
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/clmonitoringstatesatisfied
    case satisfied = 1
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/clmonitoringstateunsatisfied
    case unsatisfied = 2
    /// https://developer.apple.com/documentation/corelocation/clmonitoringstate/clmonitoringstateunmonitored
    /// — iOS 17.2+ macOS 14.2+ (`API_AVAILABLE(macos(14.2), ios(17.2)) API_UNAVAILABLE(tvos, watchos)`)
    @available(iOS 17.2, macOS 14.2, *)
    case unmonitored = 3
}

/// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v — iOS 17.0+ macOS 14.0+
/// "This service is unavailable in a compatible iPad or iPhone app running in visionOS."
@available(iOS 17.0, macOS 14.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
public actor CLMonitor {
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/init(_:) — iOS 17.0+ macOS 14.0+
    public init(_ name: String) async { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/identifiers
    public var identifiers: [String] { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/events-swift.property
    public final let events: CLMonitor.Events
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/add(_:identifier:)
    public func add(_ condition: any CLCondition, identifier: String) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/add(_:identifier:assuming:)
    public func add(_ condition: any CLCondition, identifier: String, assuming state: CLMonitor.Event.State) {
        stub()
    }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/remove(_:)
    public func remove(_ identifier: String) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record(for:)
    public func record(for identifier: String) -> CLMonitor.Record? { stub() }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/events-swift.struct
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = CLMonitor.Event
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/events-swift.struct/iterator
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> CLMonitor.Event? { stub() }
        }
        public func makeAsyncIterator() -> Iterator { stub() }
    }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event — iOS 17.0+ macOS 14.0+
    public struct Event: Sendable {
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/state-swift.typealias
        public typealias State = __CLMonitoringState
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/identifier
        public var identifier: String { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/refinement
        /// — iOS 17.0+ macOS 14.0+: `let refinement: (any CLCondition)?`
        public let refinement: (any CLCondition)?
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/state-swift.property
        public var state: CLMonitor.Event.State { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/date
        public var date: Date { stub() }

        // The diagnostics: each page says iOS 18.0+ macOS 15.0+, and CLMonitoringEvent.h declares
        // each `API_AVAILABLE(macos(15.0), ios(18.0)) API_UNAVAILABLE(watchos, tvos)`.

        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/accuracylimited
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var accuracyLimited: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationdenied
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var authorizationDenied: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationdeniedglobally
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var authorizationDeniedGlobally: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationrequestinprogress
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var authorizationRequestInProgress: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/authorizationrestricted
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var authorizationRestricted: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/conditionlimitexceeded
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var conditionLimitExceeded: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/conditionunsupported
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var conditionUnsupported: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/insufficientlyinuse
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var insufficientlyInUse: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/persistenceunavailable
        /// — iOS 18.0+ macOS 15.0+
        @available(iOS 18.0, macOS 15.0, *)
        public var persistenceUnavailable: Bool { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/event/servicesessionrequired
        /// — iOS 18.0+ macOS 15.0+ (true when the app adopted the CLRequireExplicitServiceSession
        /// Info.plist key and holds no CLServiceSession requiring authorization)
        @available(iOS 18.0, macOS 15.0, *)
        public var serviceSessionRequired: Bool { stub() }
    }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record
    public struct Record: Sendable {
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record/condition
        public let condition: any CLCondition
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/record/lastevent
        public let lastEvent: CLMonitor.Event
    }

    /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition
    /// — iOS 17.0+ macOS 14.0+
    public struct CircularGeographicCondition: CLCondition {
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition/init(center:radius:)
        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) { stub() }
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition/center
        public let center: CLLocationCoordinate2D
        /// https://developer.apple.com/documentation/corelocation/clmonitor-2r51v/circulargeographiccondition/radius
        public let radius: CLLocationDistance
    }
}
