// A stub of the Core Location declarations that CoreLocationBridge's Apple-only files use,
// with Apple's names and signatures, so that those files are type-checked on Linux
// (`swift build --package-path Tests/AppleTypeCheck`, run by .ci/run). Nothing here runs:
// every body traps. Add a declaration only with the link to its documentation page, and
// copy its signature exactly: a wrong name or type here would hide a wrong call there.
import Foundation

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

/// https://developer.apple.com/documentation/corelocation/cllocation
open class CLLocation: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/cllocation/coordinate
    open var coordinate: CLLocationCoordinate2D { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/altitude
    open var altitude: CLLocationDistance { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/horizontalaccuracy
    open var horizontalAccuracy: CLLocationAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/verticalaccuracy
    open var verticalAccuracy: CLLocationAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/speed
    open var speed: CLLocationSpeed { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/speedaccuracy
    open var speedAccuracy: CLLocationSpeedAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/course
    open var course: CLLocationDirection { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/courseaccuracy
    open var courseAccuracy: CLLocationDirectionAccuracy { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/timestamp
    open var timestamp: Date { stub() }

    /// https://developer.apple.com/documentation/corelocation/cllocation/init(latitude:longitude:)
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) { stub() }
    /// https://developer.apple.com/documentation/corelocation/cllocation/init(coordinate:altitude:horizontalaccuracy:verticalaccuracy:course:courseaccuracy:speed:speedaccuracy:timestamp:)
    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date
    ) { stub() }
}
