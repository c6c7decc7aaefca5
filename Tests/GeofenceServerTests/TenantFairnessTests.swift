import Foundation
import GeofenceServer
import Testing

/// One tenant's heavy queries do not hold up another tenant or `/health` (issue 21).
@Suite("Tenant fairness")
struct TenantFairnessTests {
    @Test("while tenant A floods far-away nearby queries, tenant B's fixes and /health answer promptly (p99 printed)")
    func heavyQueriesDoNotBlockOthers() async throws {
        try await Harness.run { h in
            let a = try await h.key("a")
            let b = try await h.key("b")
            // What stalled the old server: a region 1,100 km from where the queries are made.
            _ = try await h.call(
                .PUT, "/v1/regions/far", key: a, body: circleFeature("far", lat: 0, lon: 10, radius: 50))
            _ = try await h.call(
                .PUT, "/v1/regions/bund", key: b,
                body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
            let t0 = 1_800_000_000.0
            let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        for i in 0..<40 {
                            let r = try await h.call(
                                .GET, "/v1/regions/nearby?lat=\(Double(i) * 0.001)&lon=0&limit=100", key: a)
                            #expect(r.status == 200 || r.status == 503, "\(r)")
                        }
                        return []
                    }
                }
                group.addTask {
                    var out: [Double] = []
                    for i in 0..<100 {
                        let start = ContinuousClock.now
                        let r = try await h.call(
                            .POST, "/v1/devices/d1/locations", key: b,
                            body: fixJSON(31.26 - Double(i) * 0.0002, 121.499781, t: t0 + Double(i)))
                        out.append((ContinuousClock.now - start).milliseconds)
                        #expect(r.status == 200, "\(r)")
                        let hs = ContinuousClock.now
                        #expect(try await h.call(.GET, "/health", key: nil).status == 200)
                        out.append((ContinuousClock.now - hs).milliseconds)
                    }
                    return out
                }
                var all: [Double] = []
                for try await l in group { all += l }
                return all.sorted()
            }
            let p50 = latencies[latencies.count / 2]
            let p99 = latencies[latencies.count * 99 / 100]
            print(
                "tenant fairness: tenant B fixes + /health, \(latencies.count) requests: p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms, max \(String(format: "%.1f", latencies.last!)) ms"
            )
            // A stall, not a speed: the old server took 15 s per query here. The bound leaves room
            // for a debug build on two cores that a parallel test run (and whatever else runs on
            // the machine) shares; a p99 of 1.5 s was seen so. Speed is measured by
            // scripts/server-load.sh, not here.
            #expect(p99 < 5_000)
        }
    }
}

extension Duration {
    var milliseconds: Double {
        let c = components
        return Double(c.seconds) * 1e3 + Double(c.attoseconds) / 1e15
    }
}
