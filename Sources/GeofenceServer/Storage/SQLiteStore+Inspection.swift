import SQLiteNIO

extension SQLiteStore {
    /// The journal mode SQLite reports (`wal` once opened by ``open(path:logger:)``, `memory`
    /// for `:memory:`).
    package func journalMode() async throws -> String {
        try await read { s in try s.query("PRAGMA journal_mode").first?.column("journal_mode")?.string ?? "" }
    }

    /// The connection's `synchronous` setting: 1 NORMAL, 2 FULL.
    package func synchronousLevel() async throws -> Int {
        try await read { s in try s.query("PRAGMA synchronous").first?.column("synchronous")?.integer ?? -1 }
    }

    /// The `synchronous` setting of the worker's ledger (``SQLiteNotificationLedger``).
    package func ledgerSynchronousLevel() async throws -> Int {
        try await read(on: worker) { s in
            try s.query("PRAGMA ledger.synchronous").first?.column("synchronous")?.integer ?? -1
        }
    }

    /// Whether any stored key column holds `text` verbatim (tests check keys are only hashed).
    package func rawKeyColumnContains(_ text: String) async throws -> Bool {
        try await read { s in
            !(try s.query("SELECT 1 AS x FROM api_keys WHERE key_hash = ? OR tenant = ?", [.text(text), .text(text)])
                .isEmpty)
        }
    }
}
