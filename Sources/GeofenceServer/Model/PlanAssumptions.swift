import Foundation
import Geofencing
import RegionPlanner

/// What device plans (`GET /v1/devices/{id}/plan`) assume about the phones, from which the
/// re-plan radius is sized (``sizing``; docs/server.md, "Device plans", and docs/planner.md,
/// "The guarantee and its numbers"). The phones are taken to run Core Location's hysteresis.
public struct PlanAssumptions: Sendable, Hashable {
    /// Fastest apparent speed of a phone's fixes, in m/s (40: a motorway, with margin).
    public var maximumSpeed: Double = 40
    /// Longest time between a phone's fixes, in seconds (1; a phone reporting less often says
    /// so per request with `fixInterval`).
    public var maximumFixInterval: TimeInterval = 1
    /// Coarsest fix that decides anything, in metres (100: a coarser fix rules a region out
    /// only 20 m + 2 × accuracy away, and would need a re-plan circle of twice that).
    public var maximumAccuracy: Double = 100
    /// Largest single glitch of a fix, in metres (250).
    public var glitchAllowance: Double = 250

    /// The hysteresis the phones are taken to run.
    static let policy = HysteresisPolicy.coreLocation

    /// The defaults stated on each property.
    public init() {}

    /// The re-plan sizing these assumptions give, for catalogue regions up to
    /// `Region.maximumRadius`.
    public var sizing: ReplanSizing {
        ReplanSizing(
            policy: Self.policy, largestRegionSize: Region.maximumRadius,
            maximumSpeed: maximumSpeed, maximumFixInterval: maximumFixInterval,
            maximumAccuracy: maximumAccuracy, glitchAllowance: glitchAllowance)
    }

    /// Reads the `planAssumptions` object of a configuration file over these values.
    /// - Throws: ``ConfigurationError`` naming the key and its range.
    mutating func apply(_ o: JSONObjectReader) throws {
        maximumSpeed = try Self.number(o, "maximumSpeedMetersPerSecond", in: 0.1...1_000, default: maximumSpeed)
        maximumFixInterval = try Self.number(
            o, "maximumFixIntervalSeconds", in: 0.1...3_600, default: maximumFixInterval)
        // Up to the policy's own limit: the sizing clamps a coarser one to it.
        maximumAccuracy = try Self.number(
            o, "maximumAccuracyMeters", in: 1...Self.policy.maximumAccuracy, default: maximumAccuracy)
        glitchAllowance = try Self.number(o, "glitchAllowanceMeters", in: 0...100_000, default: glitchAllowance)
    }

    private static func number(
        _ o: JSONObjectReader, _ key: String, in range: ClosedRange<Double>, default value: Double
    ) throws -> Double {
        let found: Double?
        do { found = try o.optionalNumber(key) } catch {
            throw ConfigurationError(key: "planAssumptions.\(key)", reason: error.detail)
        }
        guard let found else { return value }
        guard found.isFinite, range.contains(found) else {
            throw ConfigurationError(
                key: "planAssumptions.\(key)", reason: "must be from \(range.lowerBound) to \(range.upperBound)")
        }
        return found
    }
}
