// A stub of the Core Location declarations that CoreLocationBridge's Apple-only files, the
// example app and docs/ios.md use, declaration by declaration as Apple's SDK declares them:
// name, signature, optionality, async/throws, Sendable, and `@available` per platform
// (introduced, deprecated, unavailable), so that those files are type-checked on Linux and
// their availability checked (`swift build --package-path Tests/AppleTypeCheck`,
// Tests/AppleTypeCheck/check-availability.py; both run by .ci/run). Nothing here runs: every
// body traps. Add a declaration only with its source (documentation page, SDK header line),
// and copy it exactly: a wrong name, type or version here would hide a wrong call there.
//
// Sources: the documentation pages (developer.apple.com, 2026, whose availability is the
// current SDK's) and the SDK headers (CLLocationManager.h, CLMonitoringEvent.h,
// CLServiceSession.h). Where a page says "iOS 5.0–27.0" and the header says
// `ios(5.0, API_TO_BE_DEPRECATED)`, the Swift interface says `deprecated: 100000` (Apple's
// "to be deprecated" version): that is what is written here.
// Apple's CoreLocation re-exports Foundation (its headers import <Foundation/Foundation.h>).
@_exported import Foundation

private func stub() -> Never { fatalError("Core Location stub: type-checking only") }

/// https://developer.apple.com/documentation/corelocation/cllocationdegrees
public typealias CLLocationDegrees = Double
/// https://developer.apple.com/documentation/corelocation/cllocationaccuracy
public typealias CLLocationAccuracy = Double
/// https://developer.apple.com/documentation/corelocation/cllocationspeed
public typealias CLLocationSpeed = Double
/// https://developer.apple.com/documentation/corelocation/cllocationspeedaccuracy
public typealias CLLocationSpeedAccuracy = Double
/// https://developer.apple.com/documentation/corelocation/cllocationdirection
public typealias CLLocationDirection = Double
/// https://developer.apple.com/documentation/corelocation/cllocationdirectionaccuracy
public typealias CLLocationDirectionAccuracy = Double
/// https://developer.apple.com/documentation/corelocation/cllocationdistance
public typealias CLLocationDistance = Double

/// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d
/// (a C struct: imported with its memberwise `init(latitude:longitude:)` and a zero `init()`)
public struct CLLocationCoordinate2D: Sendable {
    /// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d/latitude
    public var latitude: CLLocationDegrees
    /// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d/longitude
    public var longitude: CLLocationDegrees
    /// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d/init()
    public init() { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d/init(latitude:longitude:)
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) { stub() }
}

/// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2disvalid(_:)
/// CLLocation.h: `BOOL CLLocationCoordinate2DIsValid(CLLocationCoordinate2D coord)
/// API_AVAILABLE(ios(4.0), macos(10.7))` — iOS 4.0+ macOS 10.7+
@available(iOS 4.0, macOS 10.7, *)
public func CLLocationCoordinate2DIsValid(_ coord: CLLocationCoordinate2D) -> Bool { stub() }

/// https://developer.apple.com/documentation/corelocation/cllocation — iOS 2.0+ macOS 10.6+
/// (CLLocation.h; the versions below are its `API_AVAILABLE` lines). Sendable: the page lists it.
open class CLLocation: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/cllocation/coordinate
    open var coordinate: CLLocationCoordinate2D { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/altitude
    open var altitude: CLLocationDistance { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/horizontalaccuracy
    open var horizontalAccuracy: CLLocationAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/verticalaccuracy
    open var verticalAccuracy: CLLocationAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/speed — iOS 2.2+ macOS 10.7+
    @available(iOS 2.2, macOS 10.7, *)
    open var speed: CLLocationSpeed { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/speedaccuracy — iOS 10.0+ macOS 10.15+
    @available(iOS 10.0, macOS 10.15, *)
    open var speedAccuracy: CLLocationSpeedAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/course — iOS 2.2+ macOS 10.7+
    @available(iOS 2.2, macOS 10.7, *)
    open var course: CLLocationDirection { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/courseaccuracy — iOS 13.4+ macOS 10.15.4+
    @available(iOS 13.4, macOS 10.15.4, *)
    open var courseAccuracy: CLLocationDirectionAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/timestamp
    open var timestamp: Date { stub() }

    /// https://developer.apple.com/documentation/corelocation/cllocation/init(latitude:longitude:)
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/init(coordinate:altitude:horizontalaccuracy:verticalaccuracy:course:courseaccuracy:speed:speedaccuracy:timestamp:)
    /// — iOS 13.4+ macOS 10.15.4+
    @available(iOS 13.4, macOS 10.15.4, *)
    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date
    ) { stub() }
}
