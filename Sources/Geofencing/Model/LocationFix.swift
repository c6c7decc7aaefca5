import Foundation
import Geodesy

/// One position report for one subject (a device, a vehicle, a person).
///
/// A fix is what the ``Engine`` consumes: where the subject was, how sure the positioning
/// was, and when. Time always comes from `timestamp`; the engine never reads a clock.
///
/// ```swift
/// let fix = LocationFix(subject: "truck-7",
///                       coordinate: try Coordinate(latitude: 31.24, longitude: 121.5),
///                       horizontalAccuracy: 8, timestamp: Date(timeIntervalSince1970: 1_700_000_000))
/// ```
///
/// - `horizontalAccuracy` is the radius of uncertainty in metres (Core Location's
///   `horizontalAccuracy`, Android's `getAccuracy()`), or `nil` when unknown. It must be
///   finite and non-negative when given.
/// - `speed` (m/s, non-negative) and `course` (degrees clockwise from true north, in [0, 360])
///   are optional and informative only; the engine does not use them to decide transitions.
///
/// Validation happens in ``Engine/process(_:initialTrigger:)``, which rejects bad fixes with a
/// ``GeofencingError/invalidFix(subject:field:reason:)`` naming the field.
public struct LocationFix: Sendable, Hashable, Codable {
    /// Who moved: any non-empty string; each subject has its own state in every region.
    public var subject: String
    /// Where the subject was reported.
    public var coordinate: Coordinate
    /// Radius of uncertainty in metres, or `nil` when the source gives none.
    public var horizontalAccuracy: Double?
    /// When the position was measured (not when it was delivered).
    public var timestamp: Date
    /// Ground speed in metres per second, if known.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, if known.
    public var course: Double?

    public init(
        subject: String, coordinate: Coordinate, horizontalAccuracy: Double? = nil,
        timestamp: Date, speed: Double? = nil, course: Double? = nil
    ) {
        self.subject = subject
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.timestamp = timestamp
        self.speed = speed
        self.course = course
    }

    /// Whether ``validate()`` passes: the same checks, cheap enough to inline in the
    /// engine's hot path (which calls `validate()` only when this is false, for the error).
    @inline(__always) var passesValidation: Bool {
        let lat = coordinate.latitude
        let lon = coordinate.longitude
        let t = timestamp.timeIntervalSinceReferenceDate
        // Range checks written so that NaN fails them.
        return !subject.isEmpty && lat >= -90 && lat <= 90 && lon.isFinite && t.isFinite
            && (horizontalAccuracy.map { $0 >= 0 && $0 < .infinity } ?? true)
            && (speed.map { $0 >= 0 && $0 < .infinity } ?? true)
            && (course.map { $0 >= 0 && $0 <= 360 } ?? true)
    }

    /// Checks every field; throws ``GeofencingError/invalidFix(subject:field:reason:)`` naming
    /// the first bad one.
    public func validate() throws(GeofencingError) {
        func bad(_ field: String, _ reason: String) -> GeofencingError {
            .invalidFix(subject: subject, field: field, reason: reason)
        }
        if subject.isEmpty { throw bad("subject", "is empty") }
        let lat = coordinate.latitude
        let lon = coordinate.longitude
        guard lat.isFinite else { throw bad("latitude", "is not a finite number (\(lat))") }
        guard (-90.0...90.0).contains(lat) else { throw bad("latitude", "\(lat) is outside [-90, 90]") }
        guard lon.isFinite else { throw bad("longitude", "is not a finite number (\(lon))") }
        let t = timestamp.timeIntervalSinceReferenceDate
        guard t.isFinite else { throw bad("timestamp", "is not a finite time (\(t))") }
        if let a = horizontalAccuracy {
            guard a.isFinite else { throw bad("horizontalAccuracy", "is not a finite number (\(a))") }
            guard a >= 0 else { throw bad("horizontalAccuracy", "is negative (\(a) m)") }
        }
        if let s = speed {
            guard s.isFinite else { throw bad("speed", "is not a finite number (\(s))") }
            guard s >= 0 else { throw bad("speed", "is negative (\(s) m/s); use nil for unknown") }
        }
        if let c = course {
            guard c.isFinite else { throw bad("course", "is not a finite number (\(c))") }
            guard (0.0...360.0).contains(c) else {
                throw bad("course", "\(c)° is outside [0, 360]; use nil for unknown")
            }
        }
    }
}
