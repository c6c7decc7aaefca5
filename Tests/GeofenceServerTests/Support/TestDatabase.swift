import Foundation
import GeofenceServer
import Testing

/// The stores every server integration test runs against.
enum StoreKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }
}

/// Where the PostgreSQL test server is: `GEOFENCE_TEST_POSTGRES_URL` (a database whose role may
/// create schemas;
/// `.ci/postgres.sh` starts one and prints it). Unset: the PostgreSQL cases are cancelled with a
/// message — unless `CI_REQUIRE_POSTGRES=1`, then they fail.
enum PostgresTestServer {
    static var url: String? {
        guard let u = ProcessInfo.processInfo.environment["GEOFENCE_TEST_POSTGRES_URL"], !u.isEmpty else { return nil }
        return u
    }
    static var required: Bool { ProcessInfo.processInfo.environment["CI_REQUIRE_POSTGRES"] == "1" }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CI_REQUIRE_POSTGRES=1 but GEOFENCE_TEST_POSTGRES_URL is not set (run .ci/postgres.sh)"
        }
    }

    /// The server URL, or: fail (required) / cancel this test case with a visible message.
    static func require() throws -> String {
        if let url { return url }
        if required { throw Missing() }
        try Test.cancel(
            "GEOFENCE_TEST_POSTGRES_URL is not set: PostgreSQL case skipped (.ci/postgres.sh starts a server)")
    }
}

/// A fresh, empty database of one kind for one test: a new SQLite file in a temp directory,
/// or a new schema in the PostgreSQL test database (so tests run in parallel without seeing
/// each other's rows).
struct TestDatabase: Sendable {
    let kind: StoreKind
    /// An SQLite path or a `postgres://` URL: what `--database` takes.
    let location: String
    let name: String

    static func fresh(_ kind: StoreKind) async throws -> TestDatabase {
        switch kind {
        case .sqlite:
            return TestDatabase(kind: kind, location: Harness.temporaryDatabase(), name: "")
        case .postgres:
            let server = try PostgresTestServer.require()
            let name = "gft_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let url = try await PostgresStore.createSchema(
                databaseURL: server, name: name, logger: Harness.quietLogger())
            return TestDatabase(kind: kind, location: url, name: name)
        }
    }

    /// Removes the database (PostgreSQL; SQLite temp files are left to the OS).
    func drop() async {
        guard kind == .postgres, let server = PostgresTestServer.url else { return }
        try? await PostgresStore.dropSchema(databaseURL: server, name: name, logger: Harness.quietLogger())
    }

    /// Runs `body` with a fresh database, dropped afterwards whatever happens.
    static func with<T: Sendable>(_ kind: StoreKind, _ body: (TestDatabase) async throws -> T) async throws -> T {
        let db = try await fresh(kind)
        do {
            let r = try await body(db)
            await db.drop()
            return r
        } catch {
            await db.drop()
            throw error
        }
    }

    /// Opens and migrates the store.
    func open() async throws -> any ServerStore {
        try await GeofenceServer.openStore(location, logger: Harness.quietLogger())
    }
}

extension Harness {
    /// Starts a server on a fresh database of `kind`, runs `body`, shuts down, drops the database.
    static func run<T: Sendable>(
        _ kind: StoreKind, clock: ManualClock = ManualClock(),
        configure: (inout ServerConfiguration) -> Void = { _ in },
        pushSenders: PushSenders? = nil,
        _ body: (Harness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.with(kind) { db in
            try await run(database: db.location, clock: clock, configure: configure, pushSenders: pushSenders, body)
        }
    }
}
