import NIOConcurrencyHelpers

/// Checkpoints an SQLite database's write-ahead log from a second connection, so the writer
/// never stops to copy pages into the database file and `fsync` it (SQLite's automatic
/// checkpoint runs inside the commit that crosses the threshold, which shows as a latency
/// spike for every request waiting on that commit).
///
/// The writer's connection reports the log size after each commit
/// (``SQLiteSession/onWALCommit(inlineLimit:_:)``, which replaces the automatic checkpoint);
/// past ``threshold`` pages one `PRAGMA wal_checkpoint(PASSIVE)` runs here, at most one at a
/// time and at most one per ``interval`` (under steady writes the log rarely empties, and each
/// checkpoint ends with an `fsync`). PASSIVE never blocks the writer; the writer starts the log over once a checkpoint has
/// copied all of it. Durability is unchanged: a commit is in the log when it returns, exactly
/// as with the automatic checkpoint (`synchronous=NORMAL`).
final class SQLiteCheckpointer: Sendable {
    /// Log pages that trigger a checkpoint (SQLite's automatic default).
    static let threshold = 1_000
    /// Log pages at which the writer checkpoints inline after all (the log stays bounded).
    static let inlineLimit: Int32 = 16_000

    /// Least time from the end of one checkpoint to the start of the next.
    static let interval: Duration = .milliseconds(250)

    private let handle: SQLiteHandle
    /// Whether a checkpoint runs, and when the last one ended.
    private let state = NIOLockedValueBox<(running: Bool, ended: ContinuousClock.Instant?)>((false, nil))

    init(path: String) async throws {
        handle = try SQLiteHandle(path: path)
        _ = try await handle.run { s in try s.query("PRAGMA busy_timeout=5000") }
    }

    /// Called by the writer after each commit with the log's size in pages.
    func walGrew(to pages: Int) {
        guard pages >= Self.threshold else { return }
        let now = ContinuousClock.now
        let start = state.withLockedValue { s -> Bool in
            if s.running { return false }
            if let ended = s.ended, now - ended < Self.interval { return false }
            s.running = true
            return true
        }
        guard start else { return }
        Task {
            _ = try? await handle.run { s in try s.query("PRAGMA wal_checkpoint(PASSIVE)") }
            state.withLockedValue { $0 = (false, ContinuousClock.now) }
        }
    }

    func close() async { await handle.close() }
}
