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
}
