// Stub of CLLocationManager, its delegate and region types (see CLLocation.swift for the rules).
// Apple declares every CLLocationManagerDelegate method `optional`; an Objective-C optional
// requirement cannot be declared on Linux, so here they are plain requirements: a conformer
// must then implement each one with exactly Apple's signature, which is what we want checked.
import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/clauthorizationstatus
public enum CLAuthorizationStatus: Int32, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/notdetermined
    case notDetermined = 0
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/restricted
    case restricted = 1
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/denied
    case denied = 2
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedalways
    case authorizedAlways = 3
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedwheninuse
    case authorizedWhenInUse = 4
}

/// https://developer.apple.com/documentation/corelocation/clregionstate
public enum CLRegionState: Int, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clregionstate/unknown
    case unknown = 0
    /// https://developer.apple.com/documentation/corelocation/clregionstate/inside
    case inside = 1
    /// https://developer.apple.com/documentation/corelocation/clregionstate/outside
    case outside = 2
}

/// https://developer.apple.com/documentation/corelocation/clregion
open class CLRegion: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clregion/identifier
    open var identifier: String { stub() }
    /// https://developer.apple.com/documentation/corelocation/clregion/notifyonentry
    open var notifyOnEntry: Bool {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/clregion/notifyonexit
    open var notifyOnExit: Bool {
        get { stub() }
        set { stub() }
    }
}

/// https://developer.apple.com/documentation/corelocation/clcircularregion
open class CLCircularRegion: CLRegion, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/clcircularregion/init(center:radius:identifier:)
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) { stub() }
    /// https://developer.apple.com/documentation/corelocation/clcircularregion/center
    open var center: CLLocationCoordinate2D { stub() }
    /// https://developer.apple.com/documentation/corelocation/clcircularregion/radius
    open var radius: CLLocationDistance { stub() }
}

/// https://developer.apple.com/documentation/corelocation/cllocationmanager
open class CLLocationManager: NSObject {
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/init()
    public override init() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/delegate
    weak open var delegate: (any CLLocationManagerDelegate)? {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/authorizationstatus
    open var authorizationStatus: CLAuthorizationStatus { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestwheninuseauthorization()
    open func requestWhenInUseAuthorization() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestalwaysauthorization()
    open func requestAlwaysAuthorization() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/location
    open var location: CLLocation? { stub() } // Apple: `@NSCopying var location: CLLocation? { get }`
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestlocation()
    open func requestLocation() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/startupdatinglocation()
    open func startUpdatingLocation() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/stopupdatinglocation()
    open func stopUpdatingLocation() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/startmonitoring(for:)
    open func startMonitoring(for region: CLRegion) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/stopmonitoring(for:)
    open func stopMonitoring(for region: CLRegion) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requeststate(for:)
    open func requestState(for region: CLRegion) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/monitoredregions
    open var monitoredRegions: Set<CLRegion> { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/maximumregionmonitoringdistance
    open var maximumRegionMonitoringDistance: CLLocationDistance { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/ismonitoringavailable(for:)
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { stub() }
}

/// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate
public protocol CLLocationManagerDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didenterregion:)
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didexitregion:)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:diddeterminestate:for:)
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didstartmonitoringfor:)
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:monitoringdidfailfor:witherror:)
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didfailwitherror:)
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanagerdidchangeauthorization(_:)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didupdatelocations:)
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
}
