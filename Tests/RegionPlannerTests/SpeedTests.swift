import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// A subject consistently faster than the stated bound is a speed breach to report and follow,
/// not a stream of glitches.
@Suite(.drive) struct SpeedTests {
    /// A train due east at `speed` m/s for `kilometres`, a fix every `interval` s, AR(1) noise σ 8 m.
    static func train(speed: Double, interval: Double, kilometres: Double, seed: UInt64 = 80) -> [LocationFix] {
        var rng = SplitMix64(seed: seed)
        var ex = 0.0
        var ey = 0.0
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        return stride(from: 0.0, through: kilometres * 1_000 / speed, by: interval).map { t in
            ex = 0.95 * ex + 0.31 * 8 * rng.nextGaussian()
            ey = 0.95 * ey + 0.31 * 8 * rng.nextGaussian()
            return LocationFix(
                subject: "train", coordinate: Drive.frame.coordinate(50_000 + speed * t + ex, 300_000 + ey),
                horizontalAccuracy: 10, timestamp: start.addingTimeInterval(t))
        }
    }

    static let sizing15s = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 2_000, maximumSpeed: 40,
        maximumFixInterval: 15, maximumAccuracy: 20, glitchAllowance: 250)

    @Test("an 80 m/s train with 15 s fixes (bound 40 m/s): speedExceeded, followed, no silent miss")
    func fastTrain() async throws {
        let fixes = Self.train(speed: 80, interval: 15, kilometres: 300)
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue, fixes: fixes, kilometres: 300,
            policy: .coreLocation, sizing: Self.sizing15s)
        print(DriveEquivalenceTests.summary("uniform, 80 m/s train, 15 s fixes, bound 40 m/s, events only", r))
        let speeding = r.notices.compactMap { n -> Date? in
            if case .conditionBroken(.speedExceeded, let t) = n { t } else { nil }
        }
        let glitches = r.notices.filter { if case .conditionBroken(.glitchRejected, _) = $0 { true } else { false } }
        #expect(!speeding.isEmpty, "the breach is reported")
        #expect(glitches.count <= 1, "only the first fast fix looks like a glitch: \(glitches.count)")
        #expect(r.statistics.glitchesRejected <= 1)
        #expect(r.reference.count >= 20, "the ride crosses regions")
        // Every miss (if any) comes after the breach was reported; none silently.
        if let firstMiss = r.missed.map(\.time).min() {
            #expect(speeding[0] <= firstMiss)
        }
        #expect(r.missed.count <= 2, "followed: at most what the first 30 s could hide, missed \(r.missed.count)")
        #expect(r.extra.isEmpty)
        #expect(
            r.statistics.distanceMeters > 270_000, "the planner follows the train (it stayed at the first fix before)")
    }

    @Test("the track filter: two fixes off the track on one line are a fast subject; a lone far fix is a glitch")
    func filterTellsSpeedFromGlitch() {
        var filter = TrackFilter(maximumSpeed: 40, glitchAllowance: 250)
        let fixes = Self.train(speed: 80, interval: 15, kilometres: 20)
        #expect(filter.consider(fixes[0], consecutive: true) == .accepted)
        #expect(filter.consider(fixes[1], consecutive: true) == .suspect)
        #expect(filter.consider(fixes[2], consecutive: true) == .jumped)
        for f in fixes[3...] { #expect(filter.consider(f, consecutive: true) == .accepted) }
        #expect((filter.observedSpeed ?? 0) > 75)
        // A 5 km glitch at walking pace, then the track again.
        var walk = TrackFilter(maximumSpeed: 40, glitchAllowance: 250)
        let t0 = Date(timeIntervalSince1970: 0)
        func at(_ east: Double, _ t: Double) -> LocationFix {
            LocationFix(
                subject: "w", coordinate: Drive.frame.coordinate(east, 0), horizontalAccuracy: 10,
                timestamp: t0.addingTimeInterval(t))
        }
        #expect(walk.consider(at(0, 0), consecutive: true) == .accepted)
        #expect(walk.consider(at(5_000, 1), consecutive: true) == .suspect)
        #expect(walk.consider(at(2, 2), consecutive: true) == .accepted)
        #expect(walk.observedSpeed == nil)
    }
}
