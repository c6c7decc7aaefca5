import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Whether any stored key column holds `text` verbatim (tests check keys are only hashed).
    package func rawKeyColumnContains(_ text: String) async throws -> Bool {
        !(try await query("SELECT 1 FROM api_keys WHERE key_hash = \(text) OR tenant = \(text)").isEmpty)
    }

    /// Creates an empty database `name` on the server `serverURL` points at (the URL's role
    /// needs CREATEDB) and returns the URL of the new database. Tests give each case its own.
    package static func createDatabase(serverURL: String, name: String, logger: Logger) async throws -> String {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw ConfigurationError(key: "database", reason: "\"\(name)\" is not a plain database name")
        }
        let admin = try await PostgresStore.open(url: serverURL, maximumConnections: 2, logger: logger)
        do { try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")) } catch {
            try? await admin.close()
            throw error
        }
        try await admin.close()
        var c = URLComponents(string: serverURL)!
        c.path = "/" + name
        return c.string!
    }

    /// Drops database `name` (closing its sessions first).
    package static func dropDatabase(serverURL: String, name: String, logger: Logger) async throws {
        let admin = try await PostgresStore.open(url: serverURL, maximumConnections: 2, logger: logger)
        do { try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")) } catch {
            try? await admin.close()
            throw error
        }
        try await admin.close()
    }
}
