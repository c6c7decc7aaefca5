import Foundation
import Testing

@testable import GeofenceServer

@Suite("the background sleep: an event-loop timer, resumed on the background thread")
struct BackgroundSleepTests {
    @Test("a task on the background executor sleeps at least the duration and wakes on the background thread")
    func wakesOnTheBackgroundThread() async throws {
        let woke = try await withTaskExecutorPreference(BackgroundExecutor.shared) {
            let start = ContinuousClock.now
            try await BackgroundExecutor.sleep(for: .milliseconds(50))
            return (ContinuousClock.now - start, BackgroundExecutor.currentThreadIsBackground)
        }
        #expect(woke.0 >= .milliseconds(50))
        #expect(woke.1)
    }

    @Test("cancelling the sleeping task ends the sleep at once with CancellationError")
    func cancellationEndsIt() async throws {
        let sleeper = Task(executorPreference: BackgroundExecutor.shared) {
            let start = ContinuousClock.now
            do {
                try await BackgroundExecutor.sleep(for: .seconds(3_600))
                return (ContinuousClock.now - start, false)
            } catch {
                return (ContinuousClock.now - start, error is CancellationError)
            }
        }
        sleeper.cancel()
        let (slept, cancelled) = await sleeper.value
        #expect(cancelled)
        #expect(slept < .seconds(60))
    }
}
