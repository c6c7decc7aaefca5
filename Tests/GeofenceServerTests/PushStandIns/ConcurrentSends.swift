import Foundation

@testable import GeofenceServer

/// Sends messages through a sender with a bounded number in flight, and fails (rather than
/// hangs) when they are not all answered in time.
enum ConcurrentSends {
    struct TimedOut: Error, CustomStringConvertible {
        var answered: Int
        var total: Int
        var description: String { "only \(answered) of \(total) sends were answered in time" }
    }

    /// The outcome of each message, in the messages' order. Throws ``TimedOut`` when they are
    /// not all answered within `limit`. The sends, their answers and the clock resume on the
    /// harness's own thread (``HarnessExecutor``), so a busy test run cannot make an answer late.
    static func send(
        _ messages: [PushMessage], through sender: any PushSender, inFlight: Int, within limit: Duration
    ) async throws -> [PushOutcome] {
        try await withTaskExecutorPreference(HarnessExecutor.shared) {
            try await sendOnHarnessThread(messages, through: sender, inFlight: inFlight, within: limit)
        }
    }

    private static func sendOnHarnessThread(
        _ messages: [PushMessage], through sender: any PushSender, inFlight: Int, within limit: Duration
    ) async throws -> [PushOutcome] {
        let answers = Answers(count: messages.count)
        let work = Task(executorPreference: HarnessExecutor.shared) {
            await withTaskGroup(of: (Int, PushOutcome).self) { group in
                var next = 0
                func start() {
                    let index = next
                    next += 1
                    group.addTask { (index, await sender.send(messages[index])) }
                }
                while next < min(inFlight, messages.count) { start() }
                for await (index, outcome) in group {
                    await answers.set(index, outcome)
                    if next < messages.count { start() }
                }
            }
        }
        let deadline = ContinuousClock.now + limit
        while await answers.answered < messages.count {
            guard ContinuousClock.now < deadline else {
                work.cancel()
                throw TimedOut(answered: await answers.answered, total: messages.count)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return await answers.all
    }

    private actor Answers {
        var outcomes: [PushOutcome?]
        var answered = 0
        init(count: Int) { outcomes = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ outcome: PushOutcome) {
            outcomes[index] = outcome
            answered += 1
        }
        var all: [PushOutcome] { outcomes.compactMap { $0 } }
    }
}
