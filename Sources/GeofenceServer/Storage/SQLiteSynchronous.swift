/// How SQLite makes a commit durable (its `synchronous` setting, in WAL mode): what a power
/// loss or an operating-system crash can take back of what the server already answered. A
/// crash of the server process alone loses nothing committed in either mode.
public enum SQLiteSynchronous: String, Sendable, CaseIterable {
    /// The write-ahead log is synced at checkpoints, not at each commit (the default): a power
    /// loss can lose the transactions committed since the last sync — answered fix batches,
    /// region changes and events — while the database stays consistent.
    case normal
    /// The log is synced at every commit: a commit that was answered survives a power loss,
    /// at the price of one `fsync` per commit (group commit shares it among concurrent
    /// batches; docs/server.md, "Durability, measured").
    case full

    /// The `PRAGMA synchronous` statement that sets this mode on a connection.
    var pragma: String { "PRAGMA synchronous=\(rawValue.uppercased())" }
}
