import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import GeofenceServer

/// The SQLite connection's thread: requests first, background work between them, and never
/// starved.
@Suite("The connection thread's two lanes")
struct ConnectionThreadTests {
    /// Holds the thread in a job until released, so that the test can queue behind it.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let entered = DispatchSemaphore(value: 0)
        func hold() {
            entered.signal()
            semaphore.wait()
        }
        func waitUntilHeld() { entered.wait() }
        func release() { semaphore.signal() }
    }

    /// Runs `queue` behind a held job, then returns the order the jobs ran in.
    func order(_ queue: [(ConnectionThread.Lane, String)]) -> [String] {
        let thread = ConnectionThread(name: "test-connection")
        let ran = NIOLockedValueBox<[String]>([])
        let gate = Gate()
        let done = DispatchSemaphore(value: 0)
        thread.submit { gate.hold() }
        gate.waitUntilHeld()
        for (lane, name) in queue { thread.submit(lane) { ran.withLockedValue { $0.append(name) } } }
        thread.submit(.background) { done.signal() }
        gate.release()
        done.wait()
        thread.stop()
        return ran.withLockedValue { $0 }
    }

    @Test("requests waiting run before background work queued ahead of them")
    func requestsFirst() {
        let ran = order([(.background, "b1"), (.background, "b2"), (.request, "r1"), (.request, "r2")])
        #expect(ran == ["r1", "r2", "b1", "b2"])
    }

    @Test("each lane keeps its own order")
    func lanesKeepOrder() {
        let ran = order([
            (.request, "r1"), (.background, "b1"), (.request, "r2"), (.background, "b2"), (.request, "r3"),
        ])
        #expect(ran == ["r1", "r2", "r3", "b1", "b2"])
    }

    @Test("background work gets a turn while requests keep coming")
    func backgroundIsNotStarved() {
        let thread = ConnectionThread(name: "test-connection")
        let backgroundRan = DispatchSemaphore(value: 0)
        let stop = NIOLockedValueBox(false)
        // Each request queues the next one, so the request lane is never empty.
        @Sendable func request() {
            if !stop.withLockedValue({ $0 }) { thread.submit(.request, request) }
        }
        thread.submit(.request, request)
        thread.submit(.background) { backgroundRan.signal() }
        let ran = backgroundRan.wait(timeout: .now() + 10) == .success
        stop.withLockedValue { $0 = true }
        thread.stop()
        #expect(ran)
    }

    @Test("stop ends the thread after the jobs already submitted")
    func stopDrains() {
        let thread = ConnectionThread(name: "test-connection")
        let ran = NIOLockedValueBox(0)
        let gate = Gate()
        thread.submit { gate.hold() }
        gate.waitUntilHeld()
        for _ in 0..<5 { thread.submit(.background) { ran.withLockedValue { $0 += 1 } } }
        let last = DispatchSemaphore(value: 0)
        thread.submit { last.signal() }
        thread.stop()
        gate.release()
        #expect(last.wait(timeout: .now() + 10) == .success)
        // The background jobs follow the last request, one per turn.
        var waited = 0
        while ran.withLockedValue({ $0 }) < 5 && waited < 1_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(ran.withLockedValue { $0 } == 5)
    }

    @Test("the timings count the requests that waited behind background work, and only those")
    func timingsCountRequestsBehindBackground() {
        let thread = ConnectionThread(name: "test-connection")
        let metrics = ServerMetrics()
        thread.report(to: metrics.connection)
        let done = DispatchSemaphore(value: 0)
        // Two requests arrive while a background closure holds the connection.
        let background = Gate()
        thread.submit(.background) { background.hold() }
        background.waitUntilHeld()
        for _ in 0..<2 { thread.submit { done.signal() } }
        background.release()
        for _ in 0..<2 { done.wait() }
        // One arrives while a request holds it, one when it is free.
        let request = Gate()
        thread.submit { request.hold() }
        request.waitUntilHeld()
        thread.submit { done.signal() }
        request.release()
        done.wait()
        thread.submit { done.signal() }
        done.wait()
        thread.stop()

        let text = metrics.exposition()
        let wait = "geofence_sqlite_request_wait_seconds_count"
        #expect(Self.value(wait + #"{arrived="during_background"}"#, in: text) == 2, "\(text)")
        #expect(Self.value(wait + #"{arrived="otherwise"}"#, in: text) == 3, "\(text)")
        #expect(Self.value("geofence_sqlite_background_hold_seconds_count", in: text) == 1, "\(text)")
    }

    @Test("a server on SQLite reports its connection's waits at /metrics")
    func serverReportsConnectionTimings() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            let put = try await h.call(
                .PUT, "/v1/regions/plaza", key: key, body: circleFeature("plaza", lat: 31.2, lon: 121.5, radius: 200))
            #expect(put.status == 201, "\(put)")
            let text = try await h.call(.GET, "/metrics", key: key).text
            // The key's creation and the region's write waited in the request lane at least.
            let otherwise = Self.value(#"geofence_sqlite_request_wait_seconds_count{arrived="otherwise"}"#, in: text)
            #expect((otherwise ?? 0) >= 2, "\(text)")
        }
    }

    /// The value of the sample named `name` (with its labels, as exposed) in a Prometheus
    /// exposition.
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").lazy.compactMap { line -> Double? in
            let parts = line.split(separator: " ")
            return parts.count == 2 && parts[0] == name ? Double(parts[1]) : nil
        }.first
    }
}
