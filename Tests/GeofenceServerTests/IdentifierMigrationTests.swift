import Foundation
import PostgresNIO
import Testing

@testable import GeofenceServer

/// A database written before identifiers were normalized (``IdentifierMigration``): made here
/// by a server of today under ASCII placeholder ids, whose every stored occurrence is then
/// respelled in SQL as an older server would have stored a decomposed id, and the NFC
/// migration marked as not run.
@Suite("The NFC migration of stored identifiers")
struct IdentifierMigrationTests {
    static func scalars(_ s: String?) -> [UInt32] { s?.unicodeScalars.map(\.value) ?? [] }

    /// Replaces each placeholder by its spelling in every identifier column and JSON document,
    /// and forgets that the NFC migration ran.
    static func spellAsBefore(_ db: TestDatabase, _ spellings: [(String, String)]) async throws {
        switch db.kind {
        case .sqlite:
            let store = try await SQLiteStore.open(path: db.location)
            try await store.transaction { s in
                try s.query("PRAGMA defer_foreign_keys=ON")
                let tables =
                    [IdentifierMigration.Table(name: "tenants", columns: ["id"])] + SQLiteStore.identifierTables
                for (old, new) in spellings {
                    for t in tables {
                        for c in t.columns {
                            try s.query("UPDATE \(t.name) SET \(c) = replace(\(c), ?, ?)", [.text(old), .text(new)])
                        }
                    }
                }
                // The identifier migration and every later one run again (the later ones are idempotent).
                try s.query(
                    "DELETE FROM schema_migrations WHERE version >= ?",
                    [.integer(SQLiteStore.migrations.firstIndex(of: SQLiteStore.identifierMigration)! + 1)])
            }
            try await store.close()
        case .postgres:
            let logger = Harness.quietLogger()
            let store = try await PostgresStore.open(url: db.location, logger: logger)
            try await store.transaction { c in
                func run(_ sql: String, _ old: String, _ new: String) async throws {
                    var binds = PostgresBindings()
                    binds.append(old)
                    binds.append(new)
                    _ = try await PostgresStore.run(c, PostgresQuery(unsafeSQL: sql, binds: binds), logger)
                }
                for (old, new) in spellings {
                    // api_keys refers to tenants: the new tenant row first, the old one last.
                    try await run(
                        """
                        INSERT INTO tenants (id, created_at, region_version) \
                        SELECT replace(id, $1, $2), created_at, region_version FROM tenants WHERE id = $1
                        """, old, new)
                    for t in PostgresStore.identifierTables {
                        for col in t.columns {
                            try await run("UPDATE \(t.name) SET \(col) = replace(\(col), $1, $2)", old, new)
                        }
                    }
                    try await run("DELETE FROM tenants WHERE id = $1 AND $2 <> ''", old, new)
                }
                _ = try await PostgresStore.run(
                    c,
                    PostgresQuery(
                        unsafeSQL:
                            "DELETE FROM schema_migrations WHERE version >= \(PostgresStore.migrations.firstIndex(of: PostgresStore.identifierMigration)! + 1)"
                    ),
                    logger)
            }
            try await store.close()
        }
    }

    @Test(
        "old spellings of tenant, region, device and key binding become NFC; history, track and state are kept",
        arguments: StoreKind.allCases)
    func migratesOldSpellings(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let clock = ManualClock()
            let t0 = clock.date.timeIntervalSince1970 - 3_600
            let (admin, bound) = try await Harness.run(database: db.location, clock: clock) { h in
                let admin = try await h.server.createAPIKey(tenant: "T-PH")
                let bound = try await h.server.createAPIKey(tenant: "T-PH", scope: .ingest(devices: .device("D-PH")))
                try await DashboardReadTests.importRegions(
                    h, key: admin, [circleFeature("R-PH", lat: 31, lon: 121, radius: 300)])
                let events = try await DashboardReadTests.visit(h, key: admin, device: "D-PH", start: t0, inside: 6)
                #expect(events.count == 1)
                #expect(await h.server.hub.runtime("T-PH").takeSnapshot(now: clock.date) != nil)
                return (admin, bound)
            }
            try await Self.spellAsBefore(db, [("T-PH", "T-e\u{301}"), ("R-PH", "R-e\u{301}"), ("D-PH", "D-e\u{301}")])
            // The snapshot names the old spellings: the migration drops it, and the journal,
            // rewritten, is replayed instead.
            let migrated = try await db.open()
            #expect(try await migrated.startupJournal(tenant: "T-\u{E9}", useSnapshot: true).snapshot == nil)
            try await migrated.close()
            try await Harness.run(database: db.location, clock: clock) { h in
                let me = try await h.call(.GET, "/v1/key", key: admin)
                #expect(Self.scalars(me["tenant"]?.string) == Self.scalars("T-\u{E9}"), "\(me)")
                let rows = try await h.call(.GET, "/v1/devices", key: admin)["devices"]?.array ?? []
                #expect(rows.map { Self.scalars($0["id"]?.string) } == [Self.scalars("D-\u{E9}")], "\(rows)")
                #expect(
                    rows.first?["inside"]?.array?.map { Self.scalars($0.string) } == [Self.scalars("R-\u{E9}")],
                    "\(rows)")
                let history = try await h.call(.GET, "/v1/events/history?device=D-e%CC%81", key: admin)
                let event = history["events"]?.array?.first
                #expect(history["events"]?.array?.count == 1, "\(history)")
                #expect(Self.scalars(event?["device"]?.string) == Self.scalars("D-\u{E9}"), "\(history)")
                #expect(Self.scalars(event?["region"]?.string) == Self.scalars("R-\u{E9}"), "\(history)")
                let byRegion = try await h.call(.GET, "/v1/events/history?region=R-%C3%A9", key: admin)
                #expect(byRegion["events"]?.array?.count == 1, "\(byRegion)")
                let track = try await h.call(.GET, "/v1/devices/D-%C3%A9/track", key: admin)
                #expect(track["fixes"]?.array?.count == 10, "\(track)")
                let region = try await h.call(.GET, "/v1/regions/R-%C3%A9", key: admin)
                #expect(Self.scalars(region["properties"]?["id"]?.string) == Self.scalars("R-\u{E9}"), "\(region)")
                // The engine's state came back under the NFC names: leaving ends the visit.
                let away = (0..<6).map { fixJSON(31, 121.02, t: t0 + 500 + Double($0) * 10) }.joined(separator: ",")
                let r = try await h.call(.POST, "/v1/devices/D-%C3%A9/locations", key: bound, body: "[\(away)]")
                #expect(r.status == 200 && r["events"]?.array?.map { $0["event"]?.string } == ["exit"], "\(r)")
                #expect(r["events"]?.array?.map { Self.scalars($0["device"]?.string) } == [Self.scalars("D-\u{E9}")])
                // A key made now for either spelling of the tenant is the same tenant's.
                let fresh = try await h.server.createAPIKey(tenant: "T-\u{E9}")
                #expect(try await h.call(.GET, "/v1/regions/R-e%CC%81", key: fresh).status == 200)
            }
        }
    }

    @Test(
        "two stored rows that NFC makes one stop the migration with both named; nothing is rewritten",
        arguments: StoreKind.allCases)
    func collisionsRefused(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let clock = ManualClock()
            let t = clock.date.timeIntervalSince1970 - 60
            try await Harness.run(database: db.location, clock: clock) { h in
                let key = try await h.key("acme")
                for device in ["D-PH1", "D-PH2", "other"] {
                    let r = try await h.call(
                        .POST, "/v1/devices/\(device)/locations", key: key, body: "[\(fixJSON(31, 121, t: t))]")
                    #expect(r.status == 200)
                }
            }
            try await Self.spellAsBefore(db, [("D-PH1", "D-\u{E9}"), ("D-PH2", "D-e\u{301}"), ("other", "o\u{308}")])
            for _ in 0..<2 {
                do {
                    let store = try await db.open()
                    try await store.close()
                    Issue.record("the store opened")
                } catch let collision as IdentifierCollision {
                    #expect(collision.pairs.map(\.table) == ["devices"], "\(collision)")
                    #expect(collision.description.contains(#""acme/D-\u{E9}""#), "\(collision)")
                    #expect(collision.description.contains(#""acme/D-e\u{301}""#), "\(collision)")
                }
            }
        }
    }
}
