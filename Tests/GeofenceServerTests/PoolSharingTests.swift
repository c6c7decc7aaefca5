import DriveSupport
import Foundation
import Testing

/// A drive harness and an in-process server in the same test process, as `swift test` runs
/// them in parallel: the server's requests wait on Swift's cooperative pool, the drives (the
/// planner and the harness handing every fix back and forth) run on ``DriveExecutor`` and leave
/// the pool to the server. Serialized: the two tests measure the same pool.
@Suite("drives beside an in-process server", .serialized)
struct PoolSharingTests {
    /// As many drives as the pool has threads (one per core): on the pool, they would hold all
    /// of them.
    static let drives = ProcessInfo.processInfo.activeProcessorCount

    /// A measurement: on a machine other work shares, its p99s follow that work as much as the
    /// drives (scripts/pool-sharing.sh runs it).
    @Test("a server's request p99 while drives run on the drive executor stays within 2× its p99 alone", .measurement)
    func serverBesideDrives() async throws {
        try await Harness.run { h in
            let key = try await h.key("pool")
            _ = try await Self.latencies(h, key: key, count: 20) // connections and caches warm
            var alone: [Duration] = []
            var beside: [Duration] = []
            var fed: [Int] = []
            // Alternating rounds, so that the machine's other load falls on both sides alike.
            for round in 0..<8 {
                alone += try await Self.latencies(h, key: key, count: 25, first: 100 + 50 * round)
                let stop = BackgroundDrive.Stop()
                let drives = Task(executorPreference: DriveExecutor.shared) {
                    try await BackgroundDrive().run(count: Self.drives, until: stop)
                }
                try await Task.sleep(for: .milliseconds(200)) // the drives under way
                beside += try await Self.latencies(h, key: key, count: 25, first: 125 + 50 * round)
                stop.set()
                fed.append(try await drives.value)
            }
            let p99Alone = Self.p99(alone)
            let p99Beside = Self.p99(beside)
            print(
                "[pool sharing] p99 alone \(p99Alone), beside \(Self.drives) drives \(p99Beside); fixes driven per round \(fed)"
            )
            #expect(fed.reduce(0, +) > 0, "the drives ran beside the requests")
            #expect(p99Beside <= p99Alone * 2, "p99 alone \(p99Alone), beside the drives \(p99Beside)")
        }
    }

    /// A measurement: for its few seconds it starves whatever else runs in the process.
    @Test(
        "the same drives on the cooperative pool hold its threads: the p99 grows past 2× (the control)", .measurement)
    func serverBesideDrivesOnThePool() async throws {
        try await Harness.run { h in
            let key = try await h.key("pool")
            _ = try await Self.latencies(h, key: key, count: 20)
            let alone = try await Self.latencies(h, key: key, count: 50, first: 100)
            // Drives of a bounded length (the requests cannot end them while they hold the pool).
            let drives = Task { try await BackgroundDrive(fixLimit: 1_500).run(count: Self.drives, until: .init()) }
            try await Task.sleep(for: .milliseconds(200))
            let beside = try await Self.latencies(h, key: key, count: 10, first: 200)
            _ = try await drives.value
            print(
                "[pool sharing] on the pool: p99 alone \(Self.p99(alone)), beside \(Self.drives) drives \(Self.p99(beside))"
            )
            #expect(Self.p99(beside) > Self.p99(alone) * 2, "alone \(Self.p99(alone)), beside \(Self.p99(beside))")
        }
    }

    /// The times of `count` fix reports, one after another, stamped a second apart after
    /// `first` seconds.
    static func latencies(_ h: Harness, key: String, count: Int, first: Int = 0) async throws -> [Duration] {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for i in first..<first + count {
            let start = clock.now
            let reply = try await h.call(
                .POST, "/v1/devices/phone/locations", key: key,
                body: "[\(fixJSON(48.1, 11.5 + Double(i) * 1e-4, t: 1_800_000_000 + Double(i)))]")
            times.append(clock.now - start)
            #expect(reply.status == 200, "\(reply)")
        }
        return times
    }

    static func p99(_ times: [Duration]) -> Duration {
        let sorted = times.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    }
}
