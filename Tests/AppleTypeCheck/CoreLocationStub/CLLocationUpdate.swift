// Stub of CLLocationUpdate and CLBackgroundActivitySession (see CLLocation.swift for the rules).
// CLLocationUpdate: iOS 17.0+ macOS 14.0+ (a Swift struct); CLBackgroundActivitySession.h:
// `API_AVAILABLE(ios(17.0), watchos(10.0)) API_UNAVAILABLE(macos)`.
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/cllocationupdate — iOS 17.0+ macOS 14.0+
@available(iOS 17.0, macOS 14.0, watchOS 10.0, tvOS 17.0, *)
public struct CLLocationUpdate: Sendable, Equatable {
    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/location
    public var location: CLLocation? { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/isstationary
    /// — iOS 17.0–18.0 (deprecated: `stationary`)
    @available(iOS, introduced: 17.0, deprecated: 18.0, renamed: "stationary")
    @available(macOS, introduced: 14.0, deprecated: 15.0, renamed: "stationary")
    public var isStationary: Bool { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/stationary — iOS 18.0+ macOS 15.0+
    @available(iOS 18.0, macOS 15.0, watchOS 11.0, tvOS 18.0, *)
    public var stationary: Bool { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/authorizationdenied — iOS 18.0+ macOS 15.0+
    @available(iOS 18.0, macOS 15.0, watchOS 11.0, tvOS 18.0, *)
    public var authorizationDenied: Bool { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/accuracylimited — iOS 18.0+ macOS 15.0+
    @available(iOS 18.0, macOS 15.0, watchOS 11.0, tvOS 18.0, *)
    public var accuracyLimited: Bool { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/locationunavailable — iOS 18.0+ macOS 15.0+
    @available(iOS 18.0, macOS 15.0, watchOS 11.0, tvOS 18.0, *)
    public var locationUnavailable: Bool { stub() }

    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveupdates(_:) — iOS 17.0+ macOS 14.0+
    public static func liveUpdates(
        _ configuration: CLLocationUpdate.LiveConfiguration = .default
    ) -> CLLocationUpdate.Updates { stub() }

    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveconfiguration
    public enum LiveConfiguration: Sendable {
        /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveconfiguration/default
        case `default`
        /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveconfiguration/automotivenavigation
        case automotiveNavigation
        /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveconfiguration/othernavigation
        case otherNavigation
        /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveconfiguration/fitness
        case fitness
        /// https://developer.apple.com/documentation/corelocation/cllocationupdate/liveconfiguration/airborne
        case airborne
    }

    /// https://developer.apple.com/documentation/corelocation/cllocationupdate/updates
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        /// https://developer.apple.com/documentation/corelocation/cllocationupdate/updates/iterator
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> CLLocationUpdate? { stub() }
        }
        public func makeAsyncIterator() -> Iterator { stub() }
    }
}

/// https://developer.apple.com/documentation/corelocation/clbackgroundactivitysession-3mzv3 — iOS 17.0+, no macOS
/// (`final class CLBackgroundActivitySession`, Sendable)
@available(iOS 17.0, watchOS 10.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public final class CLBackgroundActivitySession: Sendable {
    /// https://developer.apple.com/documentation/corelocation/clbackgroundactivitysession-3mzv3/init()
    public init() { stub() }
    /// https://developer.apple.com/documentation/corelocation/clbackgroundactivitysession-3mzv3/invalidate()
    public final func invalidate() { stub() }
}
