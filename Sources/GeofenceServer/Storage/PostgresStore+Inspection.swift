import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Whether any stored key column holds `text` verbatim (tests check keys are only hashed).
    package func rawKeyColumnContains(_ text: String) async throws -> Bool {
        !(try await query("SELECT 1 FROM api_keys WHERE key_hash = \(text) OR tenant = \(text)").isEmpty)
    }

    /// Plays another instance's fix commit caught in the middle: in one transaction, takes
    /// device `device`'s commit lock (`pg_advisory_xact_lock(2, hashtext(tenant/device))`), moves
    /// the device's version on by one, runs `body` while holding both, then commits; returns
    /// what `body` returned. Tests use it to check that a commit waiting for the lock reads the
    /// version after it gets the lock.
    package func holdingDeviceLock<T: Sendable>(
        tenant: String, device: String, while body: @Sendable () async throws -> T
    ) async throws -> T {
        try await transaction { c in
            try await Self.run(c, "SELECT pg_advisory_xact_lock(2, hashtext(\(tenant + "/" + device)))", logger)
            try await Self.run(
                c,
                """
                INSERT INTO devices (tenant, id, last_fix, last_time, fix_count, version, updated_at)
                VALUES (\(tenant), \(device), '{}', 0, 0, 1, 0)
                ON CONFLICT (tenant, id) DO UPDATE SET version = devices.version + 1
                """, logger)
            return try await body()
        }
    }

    /// How many sessions wait for device `device`'s commit lock.
    package func deviceLockWaiters(tenant: String, device: String) async throws -> Int {
        try await query(
            """
            SELECT count(*)::bigint FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 2 AND objsubid = 2
              AND objid = (hashtext(\(tenant + "/" + device))::bigint & 4294967295)::text::oid
            """
        ).first?.decode(Int.self) ?? 0
    }

    /// Creates an empty schema `name` in the database `databaseURL` points at and returns a URL
    /// whose connections keep their tables there (`search_path`). Tests give each case its own:
    /// far quicker than a database each (CREATE DATABASE took 0.4–1 s here).
    package static func createSchema(databaseURL: String, name: String, logger: Logger) async throws -> String {
        try await admin(databaseURL, name: name, logger: logger) { "CREATE SCHEMA \($0)" }
        var c = URLComponents(string: databaseURL)!
        c.queryItems =
            (c.queryItems ?? []).filter { $0.name != "search_path" } + [URLQueryItem(name: "search_path", value: name)]
        return c.string!
    }

    /// Drops schema `name` and everything in it.
    package static func dropSchema(databaseURL: String, name: String, logger: Logger) async throws {
        try await admin(databaseURL, name: name, logger: logger) { "DROP SCHEMA IF EXISTS \($0) CASCADE" }
    }

    private static func admin(_ url: String, name: String, logger: Logger, _ sql: (String) -> String) async throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw ConfigurationError(key: "database", reason: "\"\(name)\" is not a plain schema name")
        }
        let store = try await PostgresStore.open(url: url, maximumConnections: 2, logger: logger)
        do { try await store.query(PostgresQuery(unsafeSQL: sql(name))) } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }
}
