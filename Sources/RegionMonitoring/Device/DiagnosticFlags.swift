import Foundation

/// Why a monitor event may be missing or a condition not monitored (Core Location's
/// `CLMonitor.Event` diagnostic properties, plus one of ours).
public struct DiagnosticFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Only approximate location is granted.
    public static let accuracyLimited = DiagnosticFlags(rawValue: 1 << 0)
    /// The user denied this app.
    public static let authorizationDenied = DiagnosticFlags(rawValue: 1 << 1)
    /// Location services are off for the whole device.
    public static let authorizationDeniedGlobally = DiagnosticFlags(rawValue: 1 << 2)
    /// Location use is restricted (parental controls, device management).
    public static let authorizationRestricted = DiagnosticFlags(rawValue: 1 << 3)
    /// The user has not answered yet.
    public static let authorizationRequestInProgress = DiagnosticFlags(rawValue: 1 << 4)
    /// When-in-use authorisation while the app is not in use.
    public static let insufficientlyInUse = DiagnosticFlags(rawValue: 1 << 5)
    /// The app monitors more conditions than the limit; this one is not monitored.
    public static let conditionLimitExceeded = DiagnosticFlags(rawValue: 1 << 6)
    /// The device cannot monitor this condition (kind or size).
    public static let conditionUnsupported = DiagnosticFlags(rawValue: 1 << 7)
    /// The monitor's store cannot be written; state will not survive a relaunch.
    public static let persistenceUnavailable = DiagnosticFlags(rawValue: 1 << 8)
    /// Ours: Background App Refresh is off and the app is not in use.
    public static let backgroundRefreshDisabled = DiagnosticFlags(rawValue: 1 << 9)
    /// Core Location (iOS 18): events wait for the app to hold a `CLServiceSession`.
    public static let serviceSessionRequired = DiagnosticFlags(rawValue: 1 << 10)

    /// Flags that stop delivery (all but `persistenceUnavailable`).
    static let blocking: DiagnosticFlags = [
        .accuracyLimited, .authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted,
        .authorizationRequestInProgress, .insufficientlyInUse, .conditionLimitExceeded, .conditionUnsupported,
        .backgroundRefreshDisabled, .serviceSessionRequired,
    ]
}
