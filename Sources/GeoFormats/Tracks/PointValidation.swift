import Foundation
import Geodesy

/// The checks every reader applies to a fix before it becomes a ``TrackPoint``.
enum PointValidation {
    /// A validated point, or the reason it is rejected. Negative speed or course means
    /// "unknown" (Core Location's convention, `-1`) and becomes nil; a course of 360 is 0.
    static func make(
        seconds: Double, latitude: Double, longitude: Double,
        elevation: Double?, accuracy: Double?, speed: Double?, course: Double?
    )
        -> Result<TrackPoint, TrackParseError.Reason>
    {
        guard seconds.isFinite, abs(seconds) < 1e12 else {
            return .failure(.valueOutOfRange(field: "time", value: seconds))
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            return .failure(.invalidCoordinate(error))
        }
        if longitude < -180 || longitude > 180 {
            return .failure(.valueOutOfRange(field: "longitude", value: longitude))
        }
        if let e = elevation, !e.isFinite { return .failure(.valueOutOfRange(field: "elevation", value: e)) }
        if let a = accuracy, !(a.isFinite && a >= 0) { return .failure(.valueOutOfRange(field: "accuracy", value: a)) }
        var speedValue = speed
        if let s = speed {
            guard s.isFinite else { return .failure(.valueOutOfRange(field: "speed", value: s)) }
            if s < 0 { speedValue = nil }
        }
        var courseValue = course
        if let c = course {
            guard c.isFinite, c <= 360 else { return .failure(.valueOutOfRange(field: "course", value: c)) }
            if c < 0 { courseValue = nil } else if c == 360 { courseValue = 0 }
        }
        return .success(
            TrackPoint(
                time: Date(timeIntervalSince1970: seconds), coordinate: coordinate,
                elevation: elevation, horizontalAccuracy: accuracy,
                speed: speedValue, course: courseValue))
    }

    /// Up to 40 bytes of `bytes` as text, for error messages.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let cut = UnsafeBufferPointer(rebasing: bytes.prefix(40))
        return String(decoding: cut, as: UTF8.self) + (bytes.count > 40 ? "…" : "")
    }
}
