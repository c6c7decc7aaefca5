import Crypto
import Foundation
import Testing

@testable import GeofenceServer

/// Not a unit test: the measurement behind scripts/push-bench.sh, off unless `PUSH_BENCH` names
/// how many pushes to send. It sends them through `APNsSender` to the APNs stand-in (HTTP/2 over
/// TLS on loopback), `PUSH_BENCH_CONCURRENCY` at a time, and prints pushes per second; it
/// asserts only that every push was delivered.
@Suite(
    "Push throughput (scripts/push-bench.sh)", .enabled(if: ProcessInfo.processInfo.environment["PUSH_BENCH"] != nil))
struct PushThroughputBenchmark {
    @Test("APNs sender to the stand-in")
    func apns() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = Int(environment["PUSH_BENCH"] ?? "") ?? 10_000
        let concurrency = Int(environment["PUSH_BENCH_CONCURRENCY"] ?? "") ?? 100
        let fixture = try PushFixture()
        let key = P256.Signing.PrivateKey()
        let standIn = try await APNsStandIn.start(
            keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: key.publicKey,
            topics: [PushFixture.topic], certificate: fixture.certificate, clock: fixture.clock.closure)
        let delivered = try await fixture.withClient { client in
            let sender = APNsSender(
                credentials: APNsCredentials(keyID: PushFixture.keyID, teamID: PushFixture.teamID, privateKey: key),
                client: client, endpoints: .init(production: standIn.baseURL, sandbox: standIn.baseURL),
                clock: fixture.clock.closure)
            // One push first, so that the connection is up before the clock starts.
            _ = await sender.send(PushFixture.message(to: PushFixture.apnsDestination))
            let start = ContinuousClock.now
            let delivered = await withTaskGroup(of: Bool.self) { group in
                var sent = 0
                var delivered = 0
                func next() {
                    let message = PushFixture.message(to: PushFixture.apnsDestination)
                    group.addTask { await sender.send(message).isDelivered }
                    sent += 1
                }
                while sent < min(concurrency, count) { next() }
                for await ok in group {
                    if ok { delivered += 1 }
                    if sent < count { next() }
                }
                return delivered
            }
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            print(
                "push-bench: \(count) APNs pushes, \(concurrency) in flight, \(String(format: "%.2f", seconds)) s, "
                    + "\(Int(Double(count) / seconds)) pushes/s")
            return delivered
        }
        try await standIn.shutdown()
        #expect(delivered == count)
        #expect(standIn.accepted.count == count + 1)
    }
}
