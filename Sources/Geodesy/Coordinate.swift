/// A validated position on the WGS84 ellipsoid, in degrees.
///
/// Latitude is geodetic, in [-90, 90]; longitude is normalised to (-180, 180].
/// Construction validates its input and throws ``GeodesyError`` naming the problem,
/// so a `Coordinate` value is always finite and in range.
///
/// ```swift
/// let shanghai = try Coordinate(latitude: 31.239394, longitude: 121.499781)
/// let wrapped = try Coordinate(latitude: 0, longitude: 190)   // longitude -170
/// ```
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Geodetic latitude in degrees, in [-90, 90].
    public let latitude: Double
    /// Longitude in degrees, in (-180, 180].
    public let longitude: Double

    /// Creates a coordinate, normalising the longitude into (-180, 180].
    /// - Throws: ``GeodesyError/nonFiniteLatitude(_:)``, ``GeodesyError/latitudeOutOfRange(_:)``
    ///   or ``GeodesyError/nonFiniteLongitude(_:)``.
    public init(latitude: Double, longitude: Double) throws(GeodesyError) {
        guard latitude.isFinite else { throw .nonFiniteLatitude(latitude) }
        guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard longitude.isFinite else { throw .nonFiniteLongitude(longitude) }
        self.latitude = latitude
        self.longitude = Coordinate.normalizedLongitude(longitude)
    }

    /// Creates a coordinate without validation, for hot paths whose inputs are known good.
    /// The caller guarantees a finite latitude in [-90, 90] and a finite longitude;
    /// the longitude is still normalised.
    @inlinable
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = Coordinate.normalizedLongitude(longitude)
    }

    /// `longitude` reduced to (-180, 180]; exact (uses `remainder`).
    @inlinable
    public static func normalizedLongitude(_ longitude: Double) -> Double {
        if longitude > -180, longitude <= 180 { return longitude }
        let r = longitude.remainder(dividingBy: 360)
        return r == -180 ? 180 : r
    }

    public var description: String { "(\(latitude), \(longitude))" }

    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            latitude: c.decode(Double.self, forKey: .latitude),
            longitude: c.decode(Double.self, forKey: .longitude))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
    }
}

/// Errors raised by the geodesy module for input it cannot accept.
public enum GeodesyError: Error, Equatable, Sendable, CustomStringConvertible {
    case nonFiniteLatitude(Double)
    case latitudeOutOfRange(Double)
    case nonFiniteLongitude(Double)
    case nonFiniteValue(name: String, value: Double)
    case negativeDistance(Double)
    /// A circle radius that is negative, NaN or infinite.
    case invalidRadius(Double)

    public var description: String {
        switch self {
        case .nonFiniteLatitude(let v): "latitude is not a finite number (\(v))"
        case .latitudeOutOfRange(let v): "latitude \(v) is outside [-90, 90]"
        case .nonFiniteLongitude(let v): "longitude is not a finite number (\(v))"
        case .nonFiniteValue(let name, let v): "\(name) is not a finite number (\(v))"
        case .negativeDistance(let v): "distance \(v) m is negative"
        case .invalidRadius(let v): "radius \(v) m is not a finite number ≥ 0"
        }
    }
}
