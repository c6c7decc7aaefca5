// INTERIM: spherical placeholder so that other modules can build against the API.
// The Geodesy work replaces this file with Karney's algorithms (see issue 3).
import Foundation

/// An ellipsoid of revolution.
public struct Ellipsoid: Sendable, Hashable {
    /// Equatorial radius in metres.
    public let equatorialRadius: Double
    /// Flattening.
    public let flattening: Double
    public init(equatorialRadius: Double, flattening: Double) {
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }
    /// WGS84: a = 6378137 m, f = 1/298.257223563.
    public static let wgs84 = Ellipsoid(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)
}

/// Solution of the inverse problem.
public struct InverseSolution: Sendable, Hashable {
    /// Geodesic distance in metres.
    public var distance: Double
    /// Forward azimuth at the first point, degrees clockwise from north, in (-180, 180].
    public var azimuth1: Double
    /// Forward azimuth at the second point, degrees, in (-180, 180].
    public var azimuth2: Double
}

/// Solution of the direct problem.
public struct DirectSolution: Sendable, Hashable {
    public var coordinate: Coordinate
    /// Forward azimuth at the destination, degrees, in (-180, 180].
    public var azimuth2: Double
}

/// Geodesic computations on an ellipsoid.
public struct Geodesic: Sendable {
    public let ellipsoid: Ellipsoid
    public init(_ ellipsoid: Ellipsoid) { self.ellipsoid = ellipsoid }
    public static let wgs84 = Geodesic(.wgs84)

    public func inverse(_ p1: Coordinate, _ p2: Coordinate) -> InverseSolution {
        let r = 6_371_008.8
        let φ1 = p1.latitude * .pi / 180, φ2 = p2.latitude * .pi / 180
        let dλ = (p2.longitude - p1.longitude) * .pi / 180
        let h = pow(sin((φ2 - φ1) / 2), 2) + cos(φ1) * cos(φ2) * pow(sin(dλ / 2), 2)
        let d = 2 * r * asin(min(1, sqrt(h)))
        let az1 = atan2(sin(dλ) * cos(φ2), cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)) * 180 / .pi
        let az2 = atan2(sin(dλ) * cos(φ1), -cos(φ2) * sin(φ1) + sin(φ2) * cos(φ1) * cos(dλ)) * 180 / .pi
        return InverseSolution(distance: d, azimuth1: az1, azimuth2: az2)
    }

    public func direct(from p1: Coordinate, azimuth: Double, distance: Double) -> DirectSolution {
        let r = 6_371_008.8
        let δ = distance / r, θ = azimuth * .pi / 180
        let φ1 = p1.latitude * .pi / 180, λ1 = p1.longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        let c = Coordinate(uncheckedLatitude: φ2 * 180 / .pi, longitude: λ2 * 180 / .pi)
        return DirectSolution(coordinate: c, azimuth2: inverse(c, p1).azimuth1 + 180)
    }
}

// INTERIM (replaced by the Geodesy work): exact-yet-cheap circle test.
/// A circle on the ellipsoid: the points whose geodesic distance to `center` is at most `radius`.
public struct GeodesicCircle: Sendable, Hashable {
    public let center: Coordinate
    /// Radius in metres.
    public let radius: Double
    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }
    /// Signed geodesic distance from `point` to the circle's boundary, metres (negative inside).
    public func signedDistance(to point: Coordinate) -> Double {
        Geodesic.wgs84.inverse(center, point).distance - radius
    }
    /// Whether `point` is inside or on the circle.
    public func contains(_ point: Coordinate) -> Bool { signedDistance(to: point) <= 0 }
}

// INTERIM (replaced by the Geodesy work): local east/north plane around an origin.
/// A local tangent-plane projection: east / north metres around `origin`.
public struct LocalProjection: Sendable, Hashable {
    public let origin: Coordinate
    public init(origin: Coordinate) { self.origin = origin }
    /// East and north offsets of `point` from the origin, metres.
    public func project(_ point: Coordinate) -> (east: Double, north: Double) {
        let r = 6_371_008.8
        var dλ = point.longitude - origin.longitude
        if dλ > 180 { dλ -= 360 } else if dλ < -180 { dλ += 360 }
        return (dλ * .pi / 180 * r * cos(origin.latitude * .pi / 180),
                (point.latitude - origin.latitude) * .pi / 180 * r)
    }
    /// The coordinate at east / north offsets (metres) from the origin.
    public func unproject(east: Double, north: Double) -> Coordinate {
        let r = 6_371_008.8
        let lat = origin.latitude + north / r * 180 / .pi
        let lon = origin.longitude + east / (r * cos(origin.latitude * .pi / 180)) * 180 / .pi
        return Coordinate(uncheckedLatitude: max(-90, min(90, lat)), longitude: lon)
    }
}
