import Foundation
import Testing

@testable import GeofenceServer

@Suite("The devices inside each region (InsideIndex), kept beside the engine")
struct InsideIndexTests {
    @Test("updates move a device between regions; a forgotten region is listed afresh")
    func updates() {
        var index = InsideIndex()
        index.update(device: "a", inside: ["yard", "gate"])
        index.update(device: "b", inside: ["yard"])
        #expect(index.devices(in: "yard") == ["a", "b"])
        index.update(device: "a", inside: ["gate"])
        #expect(index.devices(in: "yard") == ["b"])
        #expect(index.devices(in: "gate") == ["a"])
        index.forget(region: "gate")
        #expect(index.devices(in: "gate").isEmpty)
        // "a" still believes it is in gate; a fix that keeps it there lists it again.
        index.update(device: "a", inside: ["gate"])
        #expect(index.devices(in: "gate") == ["a"])
        index.update(device: "b", inside: [])
        #expect(index.devices(in: "yard").isEmpty)
        let built = InsideIndex.build(devices: ["x", "y", "z"]) { $0 == "z" ? [] : ["r"] }
        #expect(built.devices(in: "r") == ["x", "y"])
    }

    @Test("?inside= answers only devices inside now: after an exit, a delete, a re-creation and a rebuild")
    func insideThroughTheIndex() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let yard = circleFeature("yard", lat: 31, lon: 121, radius: 300)
            try await DashboardReadTests.importRegions(h, key: key, [yard])
            let t0 = h.clock.date.timeIntervalSince1970 - 3_600
            for i in 0..<3 {
                _ = try await DashboardReadTests.visit(
                    h, key: key, device: "van-\(i)", start: t0 + Double(100 * i), inside: 6)
            }
            _ = try await DashboardReadTests.visit(h, key: key, device: "bike", start: t0 + 50, inside: 6, after: 6)
            func inside() async throws -> [String] {
                let r = try await h.call(.GET, "/v1/devices?inside=yard", key: key)
                #expect(r.status == 200, "\(r)")
                return r["devices"]?.array?.compactMap { $0["id"]?.string } ?? []
            }
            #expect(try await inside() == ["van-2", "van-1", "van-0"])
            // Deleted and created again: nobody is inside until a fix says so.
            #expect(try await h.call(.DELETE, "/v1/regions/yard", key: key).status == 204)
            try await DashboardReadTests.importRegions(h, key: key, [yard])
            #expect(try await inside() == [])
            _ = try await DashboardReadTests.visit(h, key: key, device: "van-0", start: t0 + 2_000, inside: 6)
            #expect(try await inside() == ["van-0"])
            // The engine rebuilt from the store (its journal): the index with it.
            try await h.server.hub.runtime("acme").rebuild()
            #expect(try await inside() == ["van-0"])
            _ = try await DashboardReadTests.visit(h, key: key, device: "van-0", start: t0 + 3_000, inside: 2, after: 6)
            #expect(try await inside() == [])
            // A batch large enough to run on its engine shard off the tenant's actor
            // (TenantRuntime.offActorMinimum, with more than one shard) is listed too.
            _ = try await DashboardReadTests.visit(h, key: key, device: "truck", start: t0 - 10_000, inside: 300)
            #expect(try await inside() == ["truck"])
        }
    }
}
