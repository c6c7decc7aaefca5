import NIOConcurrencyHelpers

/// Checkpoints an SQLite database's write-ahead log from a second connection, so the writer
/// never stops to copy pages into the database file and `fsync` it (SQLite's automatic
/// checkpoint runs inside the commit that crosses the threshold, which shows as a latency
/// spike for every request waiting on that commit).
///
/// The writer's connection reports the log size after each commit
/// (``SQLiteSession/onWALCommit(inlineLimit:_:)``, which replaces the automatic checkpoint);
/// past ``threshold`` pages one `PRAGMA wal_checkpoint(PASSIVE)` runs here, at most one at a
/// time. PASSIVE never blocks the writer; the writer starts the log over once a checkpoint has
/// copied all of it. Durability is unchanged: a commit is in the log when it returns, exactly
/// as with the automatic checkpoint (`synchronous=NORMAL`).
final class SQLiteCheckpointer: Sendable {
    /// Log pages that trigger a checkpoint (SQLite's automatic default).
    static let threshold = 1_000
    /// Log pages at which the writer checkpoints inline after all (the log stays bounded).
    static let inlineLimit: Int32 = 16_000

    private let handle: SQLiteHandle
    private let busy = NIOLockedValueBox(false)

    init(path: String) async throws {
        handle = try SQLiteHandle(path: path)
        _ = try await handle.run { s in try s.query("PRAGMA busy_timeout=5000") }
    }

    /// Called by the writer after each commit with the log's size in pages.
    func walGrew(to pages: Int) {
        guard pages >= Self.threshold else { return }
        let start = busy.withLockedValue { running -> Bool in
            if running { return false }
            running = true
            return true
        }
        guard start else { return }
        Task {
            _ = try? await handle.run { s in try s.query("PRAGMA wal_checkpoint(PASSIVE)") }
            busy.withLockedValue { $0 = false }
        }
    }

    func close() async { await handle.close() }
}
