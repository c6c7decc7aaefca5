import Foundation
import Logging
import NIOConcurrencyHelpers

/// A named place in the server where a test can stop it dead ("failpoint", as etcd, TiKV and
/// FoundationDB call them): crash tests arm one, wait for the server to reach it, and SIGKILL
/// the process there, so that "killed in the middle of X" is forced rather than likely.
///
/// **Testing only, never in production**: an armed failpoint stalls the task (and whatever it
/// holds — a tenant's lock, a store transaction, SQLite's connection) forever. docs/server.md,
/// "Failpoints (testing)".
enum Failpoint: String, CaseIterable, Sendable {
    /// In `TenantRuntime.takeSnapshot`: the engine has been exported and its journal position
    /// read, the snapshot not yet written (the tenant's lock is released: ingestion goes on).
    case snapshotAfterExport = "snapshot-after-export"
    /// In each store's `saveSnapshot`: the snapshot row and its journal mark are written, inside
    /// the transaction, which has not committed.
    case snapshotBeforeCommit = "snapshot-before-commit"
    /// In `TenantRuntime.takeSnapshot`: the snapshot's transaction has committed, the
    /// runtime's bookkeeping not yet updated.
    case snapshotAfterCommit = "snapshot-after-commit"
    /// In `NotificationDispatcher.send`: the push service has answered, the delivery log not
    /// yet updated (the notification's lease is held until it runs out).
    case notificationAfterSend = "notification-after-send"
    /// In `SQLiteStore.settlePlannedEvents`: a batch's plans have committed in the worker's
    /// file, its events are still in the store's queue.
    case notificationPlanned = "notification-planned"
    /// In `SQLiteStore.settlePlannedEvents`: the events have left the store's queue, the
    /// worker's file still marks them planned.
    case notificationUnqueued = "notification-unqueued"
}

/// The failpoints armed for this process, read once from the environment:
///
/// ```
/// GEOFENCE_FAILPOINTS=snapshot-before-commit geofence serve …     # stall the 1st time it is reached
/// GEOFENCE_FAILPOINTS=snapshot-before-commit@2 geofence serve …   # pass once, stall the 2nd time
/// ```
///
/// A comma-separated list of ``Failpoint`` names, each optionally `@N` (N ≥ 1: the reach that
/// stalls; the earlier ones pass). On the stalling reach the server writes
/// `failpoint reached: NAME` to standard error (unbuffered), followed by what the caller adds
/// (the snapshot's `position N`), and the task never resumes.
///
/// Unset (always in production) a reach costs one check of a `static let` Bool; nothing is
/// counted or locked.
enum Failpoints {
    static let environmentVariable = "GEOFENCE_FAILPOINTS"

    /// What the environment asked for: each armed point with the reach (1-based) that stalls,
    /// or the error naming an entry that is not one.
    static let armed: Result<[Failpoint: Int], ConfigurationError> = parse(
        ProcessInfo.processInfo.environment[environmentVariable] ?? "")

    /// Whether any failpoint is armed: the only thing an unarmed reach looks at.
    static let isArmed: Bool = (try? armed.get().isEmpty == false) ?? false

    /// How often each armed point has been reached so far.
    private static let reaches = NIOLockedValueBox<[Failpoint: Int]>([:])

    /// Parses `name[@N],…`; an empty string arms nothing.
    static func parse(_ text: String) -> Result<[Failpoint: Int], ConfigurationError> {
        var out: [Failpoint: Int] = [:]
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let known = Failpoint.allCases.map(\.rawValue).joined(separator: ", ")
            guard let point = Failpoint(rawValue: parts[0]) else {
                return .failure(
                    ConfigurationError(
                        key: environmentVariable, reason: "unknown failpoint '\(parts[0])' (known: \(known))"))
            }
            let nth = parts.count == 2 ? Int(parts[1]) : 1
            guard let nth, nth >= 1 else {
                return .failure(
                    ConfigurationError(
                        key: environmentVariable, reason: "'\(entry)': the reach to stall at must be an integer ≥ 1"))
            }
            out[point] = nth
        }
        return .success(out)
    }

    /// At start-up: refuses a malformed `GEOFENCE_FAILPOINTS` and logs a warning naming every
    /// armed point, so a server started with one cannot be mistaken for a normal one.
    static func checkAtStartup(logger: Logger) throws {
        let points = try armed.get()
        guard !points.isEmpty else { return }
        let listed = points.map { "\($0.key.rawValue)@\($0.value)" }.sorted().joined(separator: ",")
        logger.warning(
            "failpoints armed: this server will stall on purpose (testing only)", metadata: ["failpoints": "\(listed)"])
    }

    /// Passes, or — when `point` is armed and this is the reach it stalls at — announces it and
    /// suspends the calling task forever (no thread is blocked). `nonisolated(nonsending)`: it
    /// runs on the caller's executor, so an unarmed reach inside an actor does not hop off it
    /// and back (which would cost two executor switches and open a reentrancy window).
    nonisolated(nonsending) static func reach(_ point: Failpoint, detail: @autoclosure () -> String = "") async {
        guard isArmed, isStallingReach(point) else { return }
        announce(point, detail: detail())
        while true {
            // Never resumed: the task stays suspended until the process is killed.
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
    }

    /// ``reach(_:)`` for synchronous code on a thread of its own (SQLite's connection queue):
    /// a stall blocks that thread forever.
    static func reachBlocking(_ point: Failpoint, detail: @autoclosure () -> String = "") {
        guard isArmed, isStallingReach(point) else { return }
        announce(point, detail: detail())
        while true { Thread.sleep(forTimeInterval: 3_600) }
    }

    private static func isStallingReach(_ point: Failpoint) -> Bool {
        guard let nth = (try? armed.get())?[point] else { return false }
        let count = reaches.withLockedValue { counts -> Int in
            counts[point, default: 0] += 1
            return counts[point]!
        }
        return count == nth
    }

    private static func announce(_ point: Failpoint, detail: String) {
        let line = detail.isEmpty ? point.rawValue : "\(point.rawValue) \(detail)"
        FileHandle.standardError.write(Data("failpoint reached: \(line)\n".utf8))
    }
}
