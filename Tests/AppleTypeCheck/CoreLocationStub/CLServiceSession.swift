// Stub of CLServiceSession (see CLLocation.swift for the rules). CLServiceSession.h declares the
// class and every method `API_AVAILABLE(ios(18.0), watchos(11.0), tvos(18.0)) API_UNAVAILABLE(macos)
// NS_REFINED_FOR_SWIFT`; the Swift pages (/documentation/corelocation/clservicesession-pt7n) list
// iOS, iPadOS, Mac Catalyst 18.0+, tvOS 18.0+, watchOS 11.0+ and no macOS; the Objective-C page
// (https://developer.apple.com/documentation/corelocation/clservicesession-2ddhd, 2026) says
// "macOS: -", unavailable. (Its diagnostics, `CLServiceSession.Diagnostics`, are not stubbed: unused.)
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n — iOS 18.0+, no macOS
/// (`final class CLServiceSession`, conforms to Sendable)
@available(iOS 18.0, watchOS 11.0, tvOS 18.0, *)
@available(macOS, unavailable)
public final class CLServiceSession: Sendable {
    /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/init(authorization:)
    /// — iOS 18.0+. "Passing an authorization requirement other than `.none` causes Location
    /// Services to request a person's permission for the corresponding level of authorization when
    /// possible."
    public init(authorization: CLServiceSession.AuthorizationRequirement) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/init(authorization:fullaccuracypurposekey:)
    /// — iOS 18.0+
    public init(authorization: CLServiceSession.AuthorizationRequirement, fullAccuracyPurposeKey: String) {
        stub()
    }
    /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/invalidate() — iOS 18.0+
    public final func invalidate() { stub() }

    /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement
    /// — iOS 18.0+ (conforms to Equatable, Hashable)
    public enum AuthorizationRequirement: Hashable, Sendable {
        /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement/none
        case none
        /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement/wheninuse
        case whenInUse
        /// https://developer.apple.com/documentation/corelocation/clservicesession-pt7n/authorizationrequirement/always
        /// (CLServiceSession.h: `CLServiceSessionAuthorizationRequirementAlways API_UNAVAILABLE(tvos)`)
        @available(tvOS, unavailable)
        case always
    }
}
