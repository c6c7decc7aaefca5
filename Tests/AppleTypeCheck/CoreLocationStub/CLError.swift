// Stub of CLError (see CLLocation.swift for the rules). CLError.h declares
// `typedef NS_ENUM(NSInteger, CLError)` in the error domain `kCLErrorDomain`; Swift imports it as
// the error struct `CLError` with its `Code` enum (the pages under CLError-swift.struct).
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/kclerrordomain — iOS 2.0+ macOS 10.6+
/// (CLError.h: `CL_EXTERN NSString *const kCLErrorDomain`, imported as `let kCLErrorDomain: String`;
/// a computed property here only because a stub constant cannot trap at initialisation)
public var kCLErrorDomain: String { stub() }

/// https://developer.apple.com/documentation/corelocation/clerror-swift.struct — iOS 2.0+ macOS 10.6+
public struct CLError: CustomNSError, Hashable, Sendable {
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/errordomain
    public static var errorDomain: String { stub() }
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code-swift.property
    public var code: CLError.Code { stub() }
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/errorcode
    public var errorCode: Int { stub() }
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/init(_:userinfo:)
    public init(_ code: CLError.Code, userInfo: [String: Any] = [:]) { stub() }
    public static func == (lhs: CLError, rhs: CLError) -> Bool { stub() }
    public func hash(into hasher: inout Hasher) { stub() }

    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code — the raw
    /// values are CLError.h's (`kCLErrorLocationUnknown = 0`, then in order); not frozen.
    public enum Code: Int, @unchecked Sendable, Equatable {
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/locationunknown
        case locationUnknown = 0
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/denied
        case denied = 1
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/network
        case network = 2
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/headingfailure
        case headingFailure = 3
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/regionmonitoringdenied
        case regionMonitoringDenied = 4
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/regionmonitoringfailure
        /// ("Monitoring can fail if the app exceeds the maximum number of regions that it can monitor
        /// simultaneously. Monitoring can also fail if the region's radius distance is too large.")
        case regionMonitoringFailure = 5
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/regionmonitoringsetupdelayed
        case regionMonitoringSetupDelayed = 6
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/regionmonitoringresponsedelayed
        case regionMonitoringResponseDelayed = 7
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/geocodefoundnoresult
        case geocodeFoundNoResult = 8
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/geocodefoundpartialresult
        case geocodeFoundPartialResult = 9
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/geocodecanceled
        case geocodeCanceled = 10
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/deferredfailed
        case deferredFailed = 11
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/deferrednotupdatinglocation
        case deferredNotUpdatingLocation = 12
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/deferredaccuracytoolow
        case deferredAccuracyTooLow = 13
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/deferreddistancefiltered
        case deferredDistanceFiltered = 14
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/deferredcanceled
        case deferredCanceled = 15
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/rangingunavailable
        case rangingUnavailable = 16
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/rangingfailure
        case rangingFailure = 17
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/promptdeclined
        case promptDeclined = 18
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/historicallocationerror
        case historicalLocationError = 19
    }
}

extension CLError {
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/locationunknown
    public static var locationUnknown: CLError.Code { stub() }
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/denied
    public static var denied: CLError.Code { stub() }
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/regionmonitoringdenied
    public static var regionMonitoringDenied: CLError.Code { stub() }
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/regionmonitoringfailure
    /// (the page: `static var regionMonitoringFailure: CLError.Code { get }`, iOS 2.0+ macOS 10.6+)
    public static var regionMonitoringFailure: CLError.Code { stub() }
}
