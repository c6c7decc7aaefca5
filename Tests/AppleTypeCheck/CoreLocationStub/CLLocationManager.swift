// Stub of CLLocationManager, its delegate and its value types (see CLLocation.swift for the
// rules). Versions: the documentation page of each declaration (2026) and CLLocationManager.h.
//
// Apple declares every CLLocationManagerDelegate method `optional`; an Objective-C optional
// requirement cannot be declared on Linux, so here they are plain requirements: a conformer
// must then implement each one with exactly Apple's signature, which is what we want checked.
// Only the methods our code implements are listed (a listed method is one every conformer
// here must write).
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/clauthorizationstatus — iOS 2.0+ macOS 10.6+
/// CLLocationManager.h: `typedef NS_ENUM(int, CLAuthorizationStatus)`, so `Int32` and not frozen
/// (a switch needs `@unknown default`).
public enum CLAuthorizationStatus: Int32, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/notdetermined
    case notDetermined = 0
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/restricted
    case restricted = 1
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/denied
    case denied = 2
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedalways
    /// — iOS 8.0+ macOS 10.12+ (`API_AVAILABLE(macos(10.12), ios(8.0))`)
    @available(iOS 8.0, macOS 10.12, *)
    case authorizedAlways = 3
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedwheninuse
    /// — iOS 8.0+, no macOS: `API_AVAILABLE(ios(8.0)) API_UNAVAILABLE(macos)` ("This value is not
    /// available on MacOS")
    @available(iOS 8.0, *)
    @available(macOS, unavailable)
    case authorizedWhenInUse = 4
}

extension CLAuthorizationStatus {
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorized
    /// — iOS 2.0–8.0 deprecated, macOS 10.6+: `API_DEPRECATED("Use kCLAuthorizationStatusAuthorizedAlways",
    /// ios(2.0, 8.0)) API_AVAILABLE(macos(10.6)) API_UNAVAILABLE(watchos, tvos)`; the same value as
    /// `authorizedAlways`, so imported as a static property, not a case.
    @available(iOS, introduced: 2.0, deprecated: 8.0, message: "Use kCLAuthorizationStatusAuthorizedAlways")
    @available(macOS 10.6, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    public static var authorized: CLAuthorizationStatus { stub() }
}

/// https://developer.apple.com/documentation/corelocation/claccuracyauthorization
/// CLLocationManager.h: `typedef NS_ENUM(NSInteger, CLAccuracyAuthorization)`, with no availability
/// of its own (the property `accuracyAuthorization` is iOS 14.0+ macOS 11.0+); reduced accuracy:
/// "Region monitoring and beacon ranging are not available to the application."
public enum CLAccuracyAuthorization: Int, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/claccuracyauthorization/fullaccuracy
    case fullAccuracy = 0
    /// https://developer.apple.com/documentation/corelocation/claccuracyauthorization/reducedaccuracy
    case reducedAccuracy = 1
}

/// https://developer.apple.com/documentation/corelocation/clregionstate — iOS 7.0+ macOS 10.10+
/// CLRegion.h: `typedef NS_CLOSED_ENUM(NSInteger, CLRegionState) {…} API_AVAILABLE(macos(10.10),
/// ios(7.0)) API_UNAVAILABLE(watchos, tvos)`; the page: `@frozen enum CLRegionState`. Closed: a
/// switch over its three cases is exhaustive, and an `@unknown default` there is never executed.
@available(iOS 7.0, macOS 10.10, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@frozen
public enum CLRegionState: Int, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clregionstate/unknown
    case unknown = 0
    /// https://developer.apple.com/documentation/corelocation/clregionstate/inside
    case inside = 1
    /// https://developer.apple.com/documentation/corelocation/clregionstate/outside
    case outside = 2
}

/// https://developer.apple.com/documentation/corelocation/clregion — iOS 4.0+ macOS 10.7+ (not deprecated;
/// CLRegion.h: `API_AVAILABLE(macos(10.7), ios(4.0))`). Not Sendable: the pages of CLRegion and
/// CLCircularRegion list no Sendable conformance (CLLocation's does).
@available(iOS 4.0, macOS 10.7, *)
open class CLRegion: NSObject {
    /// https://developer.apple.com/documentation/corelocation/clregion/identifier
    open var identifier: String { stub() }
    /// https://developer.apple.com/documentation/corelocation/clregion/notifyonentry — iOS 7.0+ macOS 10.10+
    @available(iOS 7.0, macOS 10.10, *)
    open var notifyOnEntry: Bool {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/clregion/notifyonexit — iOS 7.0+ macOS 10.10+
    @available(iOS 7.0, macOS 10.10, *)
    open var notifyOnExit: Bool {
        get { stub() }
        set { stub() }
    }
}

/// https://developer.apple.com/documentation/corelocation/clcircularregion — iOS 7.0–27.0 macOS 10.10–27.0
/// (the page: deprecated, "Use CLCircularGeographicCondition instead."). The header marks it
/// `API_DEPRECATED_WITH_REPLACEMENT("Use CLCircularGeographicCondition", macos(10.10,
/// API_TO_BE_DEPRECATED), ios(7.0, API_TO_BE_DEPRECATED))`, which Swift imports as `deprecated: 100000`
/// (the page shows the current SDK, 27.0, as the end of a to-be-deprecated range).
@available(iOS, introduced: 7.0, deprecated: 100000, message: "Use CLCircularGeographicCondition")
@available(macOS, introduced: 10.10, deprecated: 100000, message: "Use CLCircularGeographicCondition")
open class CLCircularRegion: CLRegion {
    /// https://developer.apple.com/documentation/corelocation/clcircularregion/init(center:radius:identifier:)
    /// — iOS 7.0–27.0 macOS 10.10–27.0 (deprecated with the class)
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clcircularregion/center
    open var center: CLLocationCoordinate2D { stub() }
    /// https://developer.apple.com/documentation/corelocation/clcircularregion/radius
    open var radius: CLLocationDistance { stub() }
}

/// https://developer.apple.com/documentation/corelocation/cllocationmanager — iOS 2.0+ macOS 10.6+
@available(iOS 2.0, macOS 10.6, *)
open class CLLocationManager: NSObject {
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/init()
    public override init() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/delegate
    weak open var delegate: (any CLLocationManagerDelegate)? {
        get { stub() }
        set { stub() }
    }

    // MARK: Authorization

    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/authorizationstatus
    /// — iOS 14.0+ macOS 11.0+ (`API_AVAILABLE(ios(14.0), macos(11.0), watchos(7.0), tvos(14.0))`)
    @available(iOS 14.0, macOS 11.0, watchOS 7.0, tvOS 14.0, *)
    open var authorizationStatus: CLAuthorizationStatus { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/accuracyauthorization
    /// — iOS 14.0+ macOS 11.0+ (`API_AVAILABLE(ios(14.0), macos(11.0), watchos(7.0), tvos(14.0))`)
    @available(iOS 14.0, macOS 11.0, watchOS 7.0, tvOS 14.0, *)
    open var accuracyAuthorization: CLAccuracyAuthorization { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestwheninuseauthorization()
    /// — iOS 8.0+ macOS 10.15+ (`API_AVAILABLE(ios(8.0), macos(10.15))`)
    @available(iOS 8.0, macOS 10.15, *)
    open func requestWhenInUseAuthorization() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestalwaysauthorization()
    /// — iOS 8.0+ macOS 10.15+ (`API_AVAILABLE(ios(8.0), macos(10.15)) API_UNAVAILABLE(tvos)`)
    @available(iOS 8.0, macOS 10.15, *)
    @available(tvOS, unavailable)
    open func requestAlwaysAuthorization() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requesttemporaryfullaccuracyauthorization(withpurposekey:completion:)
    /// — iOS 14.0+ macOS 11.0+; the page: `func requestTemporaryFullAccuracyAuthorization(withPurposeKey
    /// purposeKey: String, completion: (@Sendable ((any Error)?) -> Void)? = nil)`
    @available(iOS 14.0, macOS 11.0, watchOS 7.0, tvOS 14.0, *)
    open func requestTemporaryFullAccuracyAuthorization(
        withPurposeKey purposeKey: String, completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) { stub() }
    /// The `async` import of the same Objective-C method (a completion handler with an error is
    /// imported as `async throws`): https://developer.apple.com/documentation/corelocation/cllocationmanager/requesttemporaryfullaccuracyauthorization(withpurposekey:completion:)
    /// — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, watchOS 7.0, tvOS 14.0, *)
    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) async throws { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requesttemporaryfullaccuracyauthorization(withpurposekey:)
    /// — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, watchOS 7.0, tvOS 14.0, *)
    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) { stub() }

    // MARK: Standard location service

    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/desiredaccuracy
    open var desiredAccuracy: CLLocationAccuracy {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/distancefilter
    open var distanceFilter: CLLocationDistance {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/pauseslocationupdatesautomatically
    /// — iOS 6.0+ macOS 10.15+ (`API_AVAILABLE(ios(6.0), macos(10.15)) API_UNAVAILABLE(watchos, tvos)`)
    @available(iOS 6.0, macOS 10.15, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open var pausesLocationUpdatesAutomatically: Bool {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/allowsbackgroundlocationupdates
    /// — iOS 9.0+ macOS 10.15+ watchOS 4.0+ (`API_AVAILABLE(ios(9.0), macos(10.15), watchos(4.0))
    /// API_UNAVAILABLE(tvos)`). "Setting this property to YES when UIBackgroundModes does not include
    /// "location" is a fatal error."
    @available(iOS 9.0, macOS 10.15, watchOS 4.0, *)
    @available(tvOS, unavailable)
    open var allowsBackgroundLocationUpdates: Bool {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/showsbackgroundlocationindicator
    /// — iOS 11.0+, no macOS (`API_AVAILABLE(ios(11.0)) API_UNAVAILABLE(watchos, tvos, macos)`)
    @available(iOS 11.0, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open var showsBackgroundLocationIndicator: Bool {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/location
    /// (Apple: `@NSCopying var location: CLLocation? { get }`)
    open var location: CLLocation? { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestlocation()
    /// — iOS 9.0+ macOS 10.14+ (`API_AVAILABLE(ios(9.0), macos(10.14))`). "There can only be one
    /// outstanding location request and this method can not be used concurrently with
    /// startUpdatingLocation [...]. Calling either of those methods will immediately cancel the
    /// location request."
    @available(iOS 9.0, macOS 10.14, *)
    open func requestLocation() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/startupdatinglocation()
    /// (`API_AVAILABLE(watchos(3.0)) API_UNAVAILABLE(tvos)`)
    @available(tvOS, unavailable)
    open func startUpdatingLocation() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/stopupdatinglocation()
    open func stopUpdatingLocation() { stub() }

    // MARK: Significant-change location service

    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/significantlocationchangemonitoringavailable()
    /// — iOS 4.0+ macOS 10.7+ (`API_AVAILABLE(ios(4.0), macos(10.7)) API_UNAVAILABLE(watchos, tvos)`)
    @available(iOS 4.0, macOS 10.7, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open class func significantLocationChangeMonitoringAvailable() -> Bool { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/startmonitoringsignificantlocationchanges()
    /// — iOS 4.0+ macOS 10.7+ (`API_AVAILABLE(ios(4.0), macos(10.7)) API_UNAVAILABLE(watchos, tvos)`)
    @available(iOS 4.0, macOS 10.7, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open func startMonitoringSignificantLocationChanges() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/stopmonitoringsignificantlocationchanges()
    /// — iOS 4.0+ macOS 10.7+ (`API_AVAILABLE(ios(4.0), macos(10.7)) API_UNAVAILABLE(watchos, tvos)`)
    @available(iOS 4.0, macOS 10.7, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open func stopMonitoringSignificantLocationChanges() { stub() }

    // MARK: Region monitoring (superseded by CLMonitor)

    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/startmonitoring(for:)
    /// — iOS 5.0–27.0 macOS 10.8–27.0 (deprecated). Header (SDK 26.5, CLLocationManager.h:722):
    /// `API_DEPRECATED_WITH_REPLACEMENT("Use CLMonitor to start or stop monitoring constraint",
    /// ios(5.0, API_TO_BE_DEPRECATED), macos(10.8, API_TO_BE_DEPRECATED))`. "This is done
    /// asynchronously and may not be immediately reflected in monitoredRegions."
    @available(
        iOS, introduced: 5.0, deprecated: 100000, message: "Use CLMonitor to start or stop monitoring constraint"
    )
    @available(
        macOS, introduced: 10.8, deprecated: 100000, message: "Use CLMonitor to start or stop monitoring constraint"
    )
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open func startMonitoring(for region: CLRegion) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/stopmonitoring(for:)
    /// — iOS 5.0–27.0 macOS 10.8–27.0 (deprecated; same attribute as `startMonitoring(for:)`). "This is
    /// done asynchronously and may not be immediately reflected in monitoredRegions."
    @available(
        iOS, introduced: 5.0, deprecated: 100000, message: "Use CLMonitor to start or stop monitoring constraint"
    )
    @available(
        macOS, introduced: 10.8, deprecated: 100000, message: "Use CLMonitor to start or stop monitoring constraint"
    )
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open func stopMonitoring(for region: CLRegion) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requeststate(for:)
    /// — iOS 5.0–27.0 macOS 10.8–27.0 (deprecated): `API_DEPRECATED_WITH_REPLACEMENT("Use CLMonitor to
    /// track and query the state for monitored constraints", ios(5.0, API_TO_BE_DEPRECATED),
    /// macos(10.8, API_TO_BE_DEPRECATED))`
    @available(
        iOS, introduced: 5.0, deprecated: 100000,
        message: "Use CLMonitor to track and query the state for monitored constraints"
    )
    @available(
        macOS, introduced: 10.8, deprecated: 100000,
        message: "Use CLMonitor to track and query the state for monitored constraints"
    )
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open func requestState(for region: CLRegion) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/monitoredregions
    /// — iOS 4.0+ macOS 10.8+ (not deprecated)
    @available(iOS 4.0, macOS 10.8, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open var monitoredRegions: Set<CLRegion> { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/maximumregionmonitoringdistance
    /// — iOS 4.0+ macOS 10.8+ (not deprecated)
    @available(iOS 4.0, macOS 10.8, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open var maximumRegionMonitoringDistance: CLLocationDistance { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/ismonitoringavailable(for:)
    /// — iOS 7.0+ macOS 10.10+ (not deprecated)
    @available(iOS 7.0, macOS 10.10, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { stub() }
}

/// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate — iOS 2.0+ macOS 10.6+
public protocol CLLocationManagerDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didenterregion:)
    /// — iOS 4.0+ macOS 10.8+
    @available(iOS 4.0, macOS 10.8, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didexitregion:)
    /// — iOS 4.0+ macOS 10.8+
    @available(iOS 4.0, macOS 10.8, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:diddeterminestate:for:)
    /// — iOS 7.0+ macOS 10.10+
    @available(iOS 7.0, macOS 10.10, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didstartmonitoringfor:)
    /// — iOS 5.0+ macOS 10.8+
    @available(iOS 5.0, macOS 10.8, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:monitoringdidfailfor:witherror:)
    /// — iOS 4.0+ macOS 10.8+
    @available(iOS 4.0, macOS 10.8, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didfailwitherror:)
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanagerdidchangeauthorization(_:)
    /// — iOS 14.0+ macOS 11.0+ (`API_AVAILABLE(ios(14.0), macos(11.0), watchos(7.0), tvos(14.0))`)
    @available(iOS 14.0, macOS 11.0, watchOS 7.0, tvOS 14.0, *)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didupdatelocations:)
    /// — iOS 6.0+ macOS 10.9+
    @available(iOS 6.0, macOS 10.9, *)
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
}
