import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SQLiteNIO
import VaporCSQLite

/// One SQLite connection driven from a thread of its own (``ConnectionThread``): ``run(_:_:)``
/// hands a closure the connection (``SQLiteSession``) and runs it on that thread, so a whole
/// transaction — however many statements — costs one thread hop, and closures never interleave
/// (no lock needed).
/// Statements are prepared once per connection and reused (``SQLiteSession/query(_:_:)``).
///
/// Uses the SQLite library sqlite-nio vendors (its `VaporCSQLite` module, functions prefixed
/// `sqlite_nio_`) and sqlite-nio's ``SQLiteData`` for values; sqlite-nio's own connection type
/// runs every statement as a separate thread-pool job, with a hop back per row.
///
/// ```swift
/// let db = try SQLiteHandle(path: "geofence.sqlite")      // or ":memory:"
/// let n = try await db.run { s in
///     try s.transaction {
///         try s.query("INSERT INTO t (x) VALUES (?)", [.integer(1)])
///         return try s.query("SELECT count(*) AS n FROM t").first?.column("n")?.integer ?? 0
///     }
/// }
/// ```
final class SQLiteHandle: @unchecked Sendable {
    // Touched only on `queue`'s thread.
    private let session: SQLiteSession
    private let queue: ConnectionThread
    private let closed = NIOLockedValueBox(false)

    /// Opens (creating) the database file at `path`, or a private in-memory one for `:memory:`;
    /// with `uri`, a `path` that starts with `file:` is an SQLite URI (`?mode=ro`), in
    /// `ATTACH` too. The connection's thread is called `threadName`.
    init(path: String, uri: Bool = false, threadName: String = "geofence-sqlite") throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0)
        let rc = sqlite_nio_sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open"
            if let db { sqlite_nio_sqlite3_close_v2(db) }
            throw SQLiteFailure(code: rc, message: "\(message) (\(path))")
        }
        session = SQLiteSession(db: db)
        // Only once the file is open: a handle that failed to open has no deinit to stop it.
        queue = ConnectionThread(name: threadName)
        session.thread = queue
    }

    /// Runs `body` on the connection's thread, waiting in `lane`; its statements run back to
    /// back, nothing else in between.
    func run<T: Sendable>(
        _ lane: ConnectionThread.Lane = .request, _ body: @escaping @Sendable (SQLiteSession) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            queue.submit(lane) { [session, closed] in
                guard !closed.withLockedValue({ $0 }) else {
                    return c.resume(throwing: SQLiteFailure(code: SQLITE_MISUSE, message: "the database is closed"))
                }
                c.resume(with: Result { try body(session) })
            }
        }
    }

    /// Records from now on how the connection's lanes wait for each other (``ConnectionTimings``).
    func report(to timings: ConnectionTimings) { queue.report(to: timings) }

    /// Finalises the statements and closes the connection (after the closures already queued).
    func close() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            queue.submit { [session, closed] in
                if !closed.withLockedValue({ $0 }) {
                    closed.withLockedValue { $0 = true }
                    session.close()
                }
                c.resume()
            }
        }
    }

    deinit {
        // After the closures already submitted, which hold the session, not the handle.
        queue.submit { [session, closed] in
            if !closed.withLockedValue({ $0 }) { session.close() }
        }
        queue.stop()
    }
}

/// The connection inside ``SQLiteHandle/run(_:)``: valid only within that closure.
final class SQLiteSession: @unchecked Sendable {
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    private var walHook: WALHook?
    /// Most prepared statements kept; past it the cache starts over.
    static let cacheLimit = 256
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The thread the session's closures run on; set once, before any closure runs.
    fileprivate var thread: ConnectionThread?

    fileprivate init(db: OpaquePointer) { self.db = db }

    /// Whether a request's closure is waiting for the connection (``ConnectionThread``): work
    /// in the background lane made of independent steps stops after the current step, commits
    /// and leaves the rest to its next turn.
    var requestWaiting: Bool { thread?.requestWaiting ?? false }

    fileprivate func close() {
        for (_, s) in statements { sqlite_nio_sqlite3_finalize(s) }
        statements.removeAll()
        sqlite_nio_sqlite3_close_v2(db)
    }

    /// Defines the SQL function `name(text)`, deterministic, as the C function `body` (a Swift
    /// function that captures nothing): what a migration computes that SQL cannot.
    func defineFunction(
        _ name: String,
        _ body: @escaping @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    ) throws {
        let rc = sqlite_nio_sqlite3_create_function_v2(
            db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, body, nil, nil, nil)
        guard rc == SQLITE_OK else { throw failure(rc, "defining \(name)") }
    }

    private func failure(_ rc: Int32, _ sql: String) -> SQLiteFailure {
        SQLiteFailure(code: rc, message: "\(String(cString: sqlite_nio_sqlite3_errmsg(db))) in \(sql.prefix(120))")
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] { return s }
        var s: OpaquePointer?
        let rc = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil)
        guard rc == SQLITE_OK, let s else { throw failure(rc, sql) }
        if statements.count >= Self.cacheLimit {
            for (_, old) in statements { sqlite_nio_sqlite3_finalize(old) }
            statements.removeAll()
        }
        statements[sql] = s
        return s
    }

    /// Runs one statement with `binds` (`?` in order) and returns its rows.
    @discardableResult
    func query(_ sql: String, _ binds: [SQLiteData] = []) throws -> [SQLiteResultRow] {
        let s = try prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(s)
            sqlite_nio_sqlite3_clear_bindings(s)
        }
        for (i, bind) in binds.enumerated() {
            let i = Int32(i + 1)
            let rc: Int32
            switch bind {
            case .integer(let v): rc = sqlite_nio_sqlite3_bind_int64(s, i, Int64(v))
            case .float(let v): rc = sqlite_nio_sqlite3_bind_double(s, i, v)
            case .text(let v):
                rc = sqlite_nio_sqlite3_bind_text64(s, i, v, UInt64(v.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
            case .null: rc = sqlite_nio_sqlite3_bind_null(s, i)
            case .blob(let v):
                rc = v.withUnsafeReadableBytes {
                    sqlite_nio_sqlite3_bind_blob64(s, i, $0.baseAddress, UInt64($0.count), Self.transient)
                }
            }
            guard rc == SQLITE_OK else { throw failure(rc, sql) }
        }
        var rows: [SQLiteResultRow] = []
        var names: [String]? = nil
        while true {
            let rc = sqlite_nio_sqlite3_step(s)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw failure(rc, sql) }
            let count = sqlite_nio_sqlite3_column_count(s)
            if names == nil {
                names = (0..<count).map { sqlite_nio_sqlite3_column_name(s, $0).map { String(cString: $0) } ?? "" }
            }
            var values: [SQLiteData] = []
            values.reserveCapacity(Int(count))
            for c in 0..<count {
                switch sqlite_nio_sqlite3_column_type(s, c) {
                case SQLITE_INTEGER: values.append(.integer(Int(sqlite_nio_sqlite3_column_int64(s, c))))
                case SQLITE_FLOAT: values.append(.float(sqlite_nio_sqlite3_column_double(s, c)))
                case SQLITE_TEXT:
                    let n = Int(sqlite_nio_sqlite3_column_bytes(s, c))
                    if let p = sqlite_nio_sqlite3_column_text(s, c) {
                        values.append(.text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)))
                    } else {
                        values.append(.text(""))
                    }
                case SQLITE_BLOB:
                    let n = Int(sqlite_nio_sqlite3_column_bytes(s, c))
                    var buffer = ByteBufferAllocator().buffer(capacity: n)
                    if let p = sqlite_nio_sqlite3_column_blob(s, c) {
                        buffer.writeBytes(UnsafeRawBufferPointer(start: p, count: n))
                    }
                    values.append(.blob(buffer))
                default: values.append(.null)
                }
            }
            rows.append(SQLiteResultRow(names: names!, values: values))
        }
    }

    /// Calls `onCommit` with the number of pages in the write-ahead log after every commit,
    /// in place of SQLite's automatic checkpoint (see ``SQLiteCheckpointer``). When the log
    /// holds `inlineLimit` pages or more, it is also checkpointed here, on the writer (so it
    /// stays bounded even when the checkpointer cannot keep up).
    func onWALCommit(inlineLimit: Int32, _ onCommit: @escaping @Sendable (Int) -> Void) {
        let hook = WALHook(inlineLimit: inlineLimit, onCommit: onCommit)
        walHook = hook
        sqlite_nio_sqlite3_wal_hook(
            db,
            { context, db, _, pages in
                guard let context else { return SQLITE_OK }
                let hook = Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue()
                if pages >= hook.inlineLimit {
                    sqlite_nio_sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                hook.onCommit(Int(pages))
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Runs `body` in `BEGIN IMMEDIATE … COMMIT`, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try query("BEGIN IMMEDIATE")
        do {
            let r = try body()
            try query("COMMIT")
            return r
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }
}

/// The WAL hook's state, kept alive by the session that installed it.
private final class WALHook: Sendable {
    let inlineLimit: Int32
    let onCommit: @Sendable (Int) -> Void
    init(inlineLimit: Int32, onCommit: @escaping @Sendable (Int) -> Void) {
        self.inlineLimit = inlineLimit
        self.onCommit = onCommit
    }
}

/// One result row: values by column name.
struct SQLiteResultRow: Sendable {
    let names: [String]
    let values: [SQLiteData]

    /// The value of the column named `name` (its alias with `AS`), `nil` if there is none.
    func column(_ name: String) -> SQLiteData? {
        names.firstIndex(of: name).map { values[$0] }
    }
}

/// An SQLite error code and message, naming the statement.
struct SQLiteFailure: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }
}
