import Foundation
import Geofencing
import Testing

@testable import RegionPlanner

@Suite struct ReplanSizingTests {
    // No glitch allowance, so that the numbers show the rest of the rule alone.
    let drive = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 500, maximumSpeed: 40,
        maximumFixInterval: 1, maximumAccuracy: 90, glitchAllowance: 0)

    @Test(
        "Core Location numbers: fixes up to ±90 m keep the 200 m margin; 20 s, 40 m/s give 920 m of travel and 240 m of clearance"
    )
    func coreLocationBounds() {
        #expect(drive.exitMarginCap == 200, "20 m + 2 × 90 m is within the 200 m cushion")
        #expect(drive.exitMarginFraction == 0.5)
        #expect(drive.catalogueMarginCeiling == 200)
        #expect(drive.confirmationTime == 20)
        #expect(drive.travelAllowance == 40 * 23)
        #expect(drive.registrationClearance == 240)
        // Fixes up to the policy's ±1 km: the noise margin of the coarsest one, 2,020 m. Too
        // coarse to decide "inside" a 500 m region, such a fix still decides "outside" 2,020 m
        // out, so that is what a region needs to be ruled out; and the re-plan circle is kept
        // large enough (4,040 m) for the fix to decide it.
        let coarse = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 500, maximumSpeed: 40,
            maximumFixInterval: 1, maximumAccuracy: 1_000, glitchAllowance: 0)
        #expect(coarse.exitMarginCap == 20 + 2 * 1_000)
        #expect(coarse.catalogueMarginCeiling == 20 + 2 * 1_000)
        #expect(coarse.minimumRadius == (20 + 2 * 1_000) / 0.5)
        // Small catalogue regions cap the fixed margin at half their size.
        let small = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 100, maximumSpeed: 40,
            maximumFixInterval: 1, maximumAccuracy: 10)
        #expect(small.catalogueMarginCeiling == 50)
        // Nothing stated: the policy's assumed ±65 m, and glitches of twice that — never the
        // ±1 km limit that would keep every plan in hybrid mode.
        let unstated = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 500, maximumSpeed: 40, maximumFixInterval: 1)
        #expect(unstated.maximumAccuracy == 65)
        #expect(unstated.glitchAllowance == 130)
        #expect(unstated.catalogueMarginCeiling == 200)
    }

    @Test("the radius is the largest that keeps exit + margin + travel + clearance inside the distance")
    func radiusIsMaximal() throws {
        for d in stride(from: 2_250.0, through: 20_000, by: 750) {
            let r = try #require(drive.radius(nearestUnregistered: d))
            let used = r + drive.exitMargin(radius: r) + drive.travelAllowance + drive.registrationClearance
            #expect(used <= d)
            let bigger = r + 1
            #expect(
                bigger + drive.exitMargin(radius: bigger) + drive.travelAllowance + drive.registrationClearance > d - 1)
        }
    }

    @Test("too close an unregistered region gives no guaranteed radius; nothing unregistered gives infinity")
    func limits() {
        #expect(drive.radius(nearestUnregistered: 900) == nil)
        #expect(
            drive.radius(nearestUnregistered: 1_200) == nil,
            "920 + 240 leave 39 m: less than the 400 m minimum radius plus its margin")
        #expect(drive.minimumRadius == 400, "a ±90 m fix's 200 m noise margin fits in half the radius")
        #expect(drive.radius(nearestUnregistered: -50) == nil)
        #expect(drive.radius(nearestUnregistered: .infinity) == .infinity)
    }

    @Test("the smallest radius still lets the first fix decide 'inside' the re-plan circle")
    func minimumRadius() {
        let step = drive.maximumSpeed * drive.maximumFixInterval
        let r = drive.minimumRadius
        #expect(r - drive.exitMargin(radius: r) >= step)
        // precise: fixes worse than the circle's size decide nothing, so it is at least that big.
        let walk = ReplanSizing(
            policy: .precise, largestRegionSize: 150, maximumSpeed: 3,
            maximumFixInterval: 1, maximumAccuracy: 40)
        #expect(walk.minimumRadius >= 40)
        #expect(walk.catalogueMarginCeiling == 20 + 2 * 40)
        #expect(walk.exitMargin(radius: 60) == 0.8 * 60)
    }

    @Test("a longer observed fix interval shrinks the radius: more travel, more clearance, a longer confirmation")
    func adaptation() throws {
        let sparse = drive.adapted(toFixInterval: 60)
        #expect(sparse.maximumFixInterval == 60)
        #expect(sparse.confirmationTime == 180, "four deciding fixes a minute apart take three minutes")
        #expect(sparse.travelAllowance == 40 * (180 + 180))
        #expect(sparse.registrationClearance == 200 + 40 * 60)
        #expect(drive.adapted(toFixInterval: 0.5) == drive, "a shorter interval keeps the stated bound")
        let d = 20_000.0
        let r1 = try #require(drive.radius(nearestUnregistered: d))
        let r60 = try #require(sparse.radius(nearestUnregistered: d))
        #expect(r60 < r1)
        #expect(sparse.radius(nearestUnregistered: 12_000) == nil)
    }

    @Test(
        "the exit margin bounds the policy's own margin for every fix that decides for the circle",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func exitMarginIsThePolicyMargin(policy: HysteresisPolicy) {
        for limit in [5.0, 65, 200, 1_000] {
            let sizing = ReplanSizing(
                policy: policy, largestRegionSize: 2_000, maximumSpeed: 14,
                maximumFixInterval: 1, maximumAccuracy: limit)
            for r in [30.0, 80, 150, 400, 1_000, 5_000, 50_000] {
                let bound = sizing.exitMargin(radius: r)
                for a in stride(from: 0.0, through: limit, by: limit / 20) {
                    if let m = policy.margin(accuracy: a, regionSize: r) { #expect(m <= bound, "a \(a), r \(r)") }
                }
                if let m = policy.margin(accuracy: limit, regionSize: r) {
                    #expect(m == bound, "the coarsest deciding fix sets the bound (a \(limit), r \(r))")
                }
            }
        }
    }
}
