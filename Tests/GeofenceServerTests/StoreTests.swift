import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import Testing

@Suite("Stores (SQLite and PostgreSQL), keys, signatures, retry schedule")
struct StoreTests {
    @Test("the database file is created on first start, in WAL mode, at the latest schema version")
    func createdWithMigrations() async throws {
        let path = Harness.temporaryDatabase()
        #expect(!FileManager.default.fileExists(atPath: path))
        let store = try await SQLiteStore.open(path: path)
        try await store.migrate()
        try await store.migrate() // idempotent
        #expect(FileManager.default.fileExists(atPath: path))
        // 2: plan settings, 3: engine snapshots and retention, 4: key scopes, 5: the dashboard's browse indexes, 6: battery,
        // 7: identifiers in NFC, 8: notifications, 9: shared APNs provider tokens, 10: the notification log
        // and caps moved to the worker's ledger.
        #expect(try await store.schemaVersion() == 10)
        #expect(try await store.journalMode() == "wal")
        #expect(FileManager.default.fileExists(atPath: path + "-notifications"))
        try await store.close()
    }

    @Test("SQLite commits with synchronous=NORMAL by default and FULL when asked")
    func sqliteSynchronous() async throws {
        let path = Harness.temporaryDatabase()
        let normal = try await SQLiteStore.open(path: path)
        #expect(try await normal.synchronousLevel() == 1)
        // The worker's ledger always syncs: its commits decide what the store's file forgets.
        #expect(try await normal.ledgerSynchronousLevel() == 2)
        try await normal.close()
        let full = try await SQLiteStore.open(path: path, synchronous: .full)
        #expect(try await full.synchronousLevel() == 2)
        try await full.close()
    }

    @Test("a PostgreSQL database is migrated to the latest version, idempotently, also by instances starting together")
    func postgresMigrations() async throws {
        try await TestDatabase.with(.postgres) { db in
            async let a = db.open()
            async let b = db.open()
            let (s1, s2) = try await (a, b)
            let store = try #require(s1 as? PostgresStore)
            try await store.migrate()
            // 2: the group-commit function, 3: plan settings, 4: engine snapshots, 5: key scopes, 6: browse indexes,
            // 7: battery, 8: identifiers in NFC, 9: notifications, 10: shared APNs provider tokens.
            #expect(try await store.schemaVersion() == 10)
            try await s1.close()
            try await s2.close()
        }
    }

    @Test("API keys are stored only as their SHA-256", arguments: StoreKind.allCases)
    func keysHashed(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let server = GeofenceServer(configuration: ServerConfiguration(), store: store)
            let key = try await server.createAPIKey(tenant: "acme")
            #expect(key.hasPrefix("gfk_") && key.count == 68)
            #expect(APIKey.hash(key).count == 64)
            #expect(try await store.tenant(forKeyHash: APIKey.hash(key)) == "acme")
            #expect(try await store.tenant(forKeyHash: key) == nil)
            if let s = store as? SQLiteStore { #expect(try await s.rawKeyColumnContains(key) == false) }
            if let s = store as? PostgresStore { #expect(try await s.rawKeyColumnContains(key) == false) }
            try await store.close()
        }
    }

    @Test("events and their deliveries are committed with the fix batch, or not at all", arguments: StoreKind.allCases)
    func outboxAtomic(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            try await store.addWebhook(
                Webhook(id: "w1", tenant: "t", url: "http://127.0.0.1:1/", secret: "s"), now: Date())
            let c = try Coordinate(latitude: 1, longitude: 2)
            let fix = LocationFix(subject: "d", coordinate: c, timestamp: Date(timeIntervalSince1970: 100))
            let ev = TransitionEvent(
                kind: .enter, regionID: "r", subject: "d", fix: fix, time: fix.timestamp, crossedAt: fix.timestamp)
            let stored = try await store.commitFixes(
                tenant: "t", device: "d", fixes: [fix], events: [StoredEvent(id: "e1", tenant: "t", event: ev)],
                now: Date())
            #expect(stored.map(\.cursor) == [1])
            #expect(try await store.dueDeliveries(now: Date(), limit: 10).map(\.eventID) == ["e1"])
            // A duplicate event id violates UNIQUE: the whole batch (journal, device, outbox) rolls back.
            let fix2 = LocationFix(subject: "d", coordinate: c, timestamp: Date(timeIntervalSince1970: 200))
            await #expect(throws: (any Error).self) {
                _ = try await store.commitFixes(
                    tenant: "t", device: "d", fixes: [fix2],
                    events: [
                        StoredEvent(id: "e2", tenant: "t", event: ev), StoredEvent(id: "e1", tenant: "t", event: ev),
                    ], now: Date())
            }
            #expect(try await store.events(tenant: "t", after: 0, limit: 10).count == 1)
            // (An hour on: a PostgreSQL store leases the delivery it just handed out.)
            #expect(try await store.dueDeliveries(now: Date().addingTimeInterval(3_600), limit: 10).count == 1)
            let journal = try await store.journal(tenant: "t")
            #expect(journal.count == 1)
            if case .fixes(let f) = journal[0] { #expect(f == [fix]) } else { Issue.record("expected a fix batch") }
            try await store.close()
        }
    }

    @Test("webhook signatures verify only with the right secret and body")
    func signature() {
        let body = Data(#"{"id":"e1"}"#.utf8)
        let h = WebhookSignature.header(secret: "s3cret", timestamp: 1_800_000_000, body: body)
        #expect(h.hasPrefix("t=1800000000,v1="))
        #expect(WebhookSignature.verify(header: h, secret: "s3cret", body: body))
        #expect(!WebhookSignature.verify(header: h, secret: "other", body: body))
        #expect(!WebhookSignature.verify(header: h, secret: "s3cret", body: Data(#"{"id":"e2"}"#.utf8)))
        #expect(
            !WebhookSignature.verify(
                header: h.replacingOccurrences(of: "t=1800000000", with: "t=1800000001"), secret: "s3cret", body: body))
    }

    @Test("retry delays double from the base, are capped, and stop at maxAttempts")
    func retrySchedule() {
        let p = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(10), maxAttempts: 5)
        #expect(p.delay(afterAttempt: 1) == .seconds(2))
        #expect(p.delay(afterAttempt: 2) == .seconds(4))
        #expect(p.delay(afterAttempt: 3) == .seconds(8))
        #expect(p.delay(afterAttempt: 4) == .seconds(10))
        #expect(p.delay(afterAttempt: 5) == nil)
    }

    @Test("the committed OpenAPI document is the one served at /v1/openapi.json", arguments: StoreKind.allCases)
    func openAPIDocument(_ store: StoreKind) async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi/openapi.json")
        let committed = try String(contentsOf: file, encoding: .utf8)
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let served = try await h.call(.GET, "/v1/openapi.json", key: key)
            #expect(served.status == 200)
            // openapi/openapi.json is a link to the served resource: one file, one contract.
            #expect(served.text == committed)
            #expect(served["openapi"]?.string == "3.1.0")
            // Every route the server has is described.
            var paths = Set<String>()
            if case .object(let o)? = served["paths"] { paths = Set(o.keys) }
            for p in [
                "/health", "/metrics", "/v1/regions", "/v1/regions/{id}", "/v1/regions/import", "/v1/regions/nearby",
                "/v1/devices/{id}/locations", "/v1/devices/{id}/state", "/v1/events", "/v1/events/stream",
                "/v1/webhooks",
                "/v1/webhooks/{id}", "/v1/webhooks/{id}/deliveries",
            ] {
                #expect(paths.contains(p), "\(p)")
            }
        }
    }

    @Test("/metrics counts ingested fixes and events", arguments: StoreKind.allCases)
    func metrics(_ store: StoreKind) async throws {
        try await Harness.run(store, configure: { $0.metricsToken = "ops-token" }) { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .PUT, "/v1/regions/bund", key: key,
                body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
            let fixes =
                [fixJSON(31.259394, 121.499781, t: 1_800_000_000)]
                + (1...4).map { fixJSON(31.240394, 121.499781, t: 1_800_000_000 + 10 * Double($0)) }
            _ = try await h.call(.POST, "/v1/devices/d/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
            #expect(try await h.call(.GET, "/metrics", key: key).status == 401)
            let m = try await h.call(.GET, "/metrics", key: "ops-token")
            #expect(m.status == 200)
            #expect(m.text.contains("geofence_fixes_ingested_total 5"), "\(m.text)")
            #expect(m.text.contains("geofence_events_total 1"))
        }
    }
}

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("the parts are read, escapes decoded, defaults filled in")
    func parts() throws {
        let u = try PostgresURL(
            "postgres://geo%40fence:p%2Fss%3Aword@db.internal:6543/geo?sslmode=require&search_path=tenant_a")
        #expect(u.user == "geo@fence" && u.password == "p/ss:word")
        #expect(u.host == "db.internal" && u.port == 6543 && u.database == "geo")
        #expect(u.requireTLS && u.searchPath == "tenant_a")
        let d = try PostgresURL("postgresql://geofence@127.0.0.1")
        #expect(d.port == 5432 && d.database == "geofence" && d.password == nil && !d.requireTLS && d.searchPath == nil)
    }

    @Test(
        "a bad URL is a configuration error naming the part, never echoing the password",
        arguments: [
            ("mysql://u:secret@h/db", "not a postgres:// URL"),
            ("postgres://u:secret@/db", "no host"),
            ("postgres://:secret@h/db", "no user"),
            ("postgres://u:secret@h/db?sslmode=sometimes", "sslmode"),
        ])
    func rejected(_ url: String, _ reason: String) {
        #expect {
            _ = try PostgresURL(url)
        } throws: { error in
            guard let e = error as? ConfigurationError else { return false }
            return e.key == "database" && e.reason.contains(reason) && !e.description.contains("secret")
        }
    }
}
