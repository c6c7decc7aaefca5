import Foundation
import Geofencing

/// Durable state of the server, behind one protocol so that SQLite (the embedded default,
/// ``SQLiteStore``) and PostgreSQL can be swapped.
///
/// Every method is one transaction. The rules an implementation must keep:
/// - ``commitFixes(tenant:device:fixes:events:now:)`` writes the fixes to the tenant's
///   journal, the device row, the events to the outbox and one pending delivery per event
///   and registered webhook, **all in one transaction** (the outbox pattern);
/// - the journal (region changes and fix batches, in order) replays into an ``Engine`` that
///   is exactly the one the server had in memory, which is how the in-memory engines are
///   rebuilt at start-up (``journal(tenant:)``);
/// - every query is scoped by tenant: no method returns another tenant's rows;
/// - a store shared by several processes (``PostgresStore``) throws
///   ``StoreError/staleView(tenant:)`` or ``StoreError/staleDevice(tenant:device:)`` from a
///   write that would build on state this process's engine has not seen (writing nothing),
///   hands out the device batches it missed (``newerBatches(tenant:device:)``), and lists the
///   tenants whose regions changed elsewhere in ``changedTenants()``; the server rebuilds
///   those engines.
public protocol ServerStore: Sendable {
    /// Creates or upgrades the schema (idempotent, versioned).
    func migrate() async throws
    /// Releases the connection.
    func close() async throws

    // MARK: Tenants and keys
    /// Stores an API key hash for `tenant` (creating the tenant) with its scope.
    func addAPIKey(tenant: String, keyHash: String, scope: KeyScope, now: Date) async throws
    /// The tenant and scope of the key with this SHA-256 hash (hex), if any (a scope the
    /// server cannot read grants nothing: `nil`).
    func grant(forKeyHash keyHash: String) async throws -> KeyGrant?
    /// Every tenant with a journal or a key.
    func tenants() async throws -> [String]
    /// Whether other processes may write to the same data (then the server checks for their
    /// changes: ``newerBatches(tenant:device:)``, ``changedTenants()``). The default is `false`.
    var isShared: Bool { get }
    /// Tenants whose regions another process changed since this process last read their
    /// journal (always empty for a store only one process uses, the default).
    func changedTenants() async throws -> [String]

    // MARK: Regions
    /// Inserts or replaces regions (and journals the change).
    func upsertRegions(tenant: String, _ regions: [Region], now: Date) async throws
    /// Deletes a region (and journals it); returns whether it existed.
    func deleteRegion(tenant: String, id: String, now: Date) async throws -> Bool
    /// One region's stored GeoJSON feature.
    func region(tenant: String, id: String) async throws -> ServerJSON?
    /// Regions ordered by id, after `after` (exclusive), at most `limit`.
    func listRegions(tenant: String, after: String?, limit: Int) async throws -> [(id: String, feature: ServerJSON)]

    // MARK: Devices and events
    /// Commits one accepted fix batch and the events it produced (see the type's rules);
    /// returns the events with their cursors.
    func commitFixes(
        tenant: String, device: String, fixes: [LocationFix], events: [StoredEvent], now: Date
    ) async throws -> [StoredEvent]
    /// Commits several accepted fix batches of one tenant, in order, as
    /// ``commitFixes(tenant:device:fixes:events:now:)`` would one after the other; returns each
    /// batch's events with their cursors. A store that does it in **one transaction** (all or
    /// nothing) says so with ``commitsBatchesAtomically``; the server then groups the batches
    /// of concurrent requests into one commit (group commit). The default commits them one by one.
    func commitFixBatches(tenant: String, _ batches: [FixBatch], now: Date) async throws -> [[StoredEvent]]
    /// Whether ``commitFixBatches(tenant:_:now:)`` is one all-or-nothing transaction. The default is `false`.
    var commitsBatchesAtomically: Bool { get }
    /// The tenant's events after `cursor`, in cursor order.
    func events(tenant: String, after cursor: Int64, limit: Int) async throws -> [ServerJSON]
    /// The tenant's events matching `filter` with a cursor below `before` (`nil`: any), newest
    /// first, at most `limit`, examining at most `scan` of the events its indexes select
    /// (tenant, device, region): the page ends early, with ``HistoryPage/next``, where the scan
    /// stopped (ServerStore+Browse).
    func eventHistory(
        tenant: String, filter: EventFilter, before: Int64?, limit: Int, scan: Int
    ) async throws -> HistoryPage
    /// The tenant's devices whose id starts with `prefix` (`nil`: all), last seen first (ties by
    /// id), after `after`, at most `limit`; with a prefix, examining at most `scan` devices (the
    /// page ends early, with ``DevicePage/next``, where the scan stopped) (ServerStore+Browse).
    func deviceList(
        tenant: String, prefix: String?, after: DeviceCursor?, limit: Int, scan: Int
    ) async throws -> DevicePage
    /// Keeps `percent` as the device's battery level reported at `time` (seconds since 1970),
    /// unless a later report is already kept (SQLiteStore+Battery, PostgresStore+Battery).
    func recordBattery(tenant: String, device: String, percent: Double, at time: Double) async throws
    /// The kept battery level of each of `devices` that reported one.
    func batteries(tenant: String, devices: [String]) async throws -> [String: BatteryReport]
    /// The device's fix batches still in the journal, newest first, each with its position for
    /// paging (`before`: only batches older than that position), at most `limit` batches
    /// (ServerStore+Browse).
    func fixBatches(tenant: String, device: String, before: Int64?, limit: Int) async throws -> [JournalBatch]
    /// The tenant's journal in order, for rebuilding its engine.
    func journal(tenant: String) async throws -> [JournalEntry]
    /// The device's fix batches committed by other processes since this process's engine last
    /// saw the device, in order, when the tenant's regions have not changed since; `nil` when
    /// the store cannot tell (rebuild the whole engine then). The default is `nil`.
    func newerBatches(tenant: String, device: String) async throws -> [[LocationFix]]?

    // MARK: Settings
    /// The stored settings documents of the tenant and of `device` (`nil` where none is stored),
    /// read together (one query).
    func settings(tenant: String, device: String?) async throws -> (tenant: ServerJSON?, device: ServerJSON?)
    /// Stores (replaces) the tenant's settings document (`device == nil`) or one device's.
    func putSettings(tenant: String, device: String?, _ document: ServerJSON, now: Date) async throws

    // MARK: Snapshots (ServerStore+Snapshots)
    /// The journal position an engine holding exactly the tenant's journal covers — the tenant's
    /// last journal entry — for a snapshot of that engine (``saveSnapshot(tenant:position:data:now:)``).
    /// Call it with the tenant settled: nothing of it committed but not applied, nothing applied
    /// but not committed. `nil` when the store keeps no snapshots, or when another process has
    /// written to the tenant since this one's engine saw it. Writes nothing. The default is `nil`.
    func snapshotPosition(tenant: String) async throws -> Int64?
    /// Stores `data` (an ``Engine/subjectSnapshot()``) as the tenant's snapshot covering the
    /// journal up to `position` (from ``snapshotPosition(tenant:)``), replacing the previous one,
    /// in one transaction — unless the stored one covers a later position already. `now` is its
    /// time and its journal mark's (retention, ``prune(tenant:fixesBefore:eventsBefore:limit:)``):
    /// no earlier than any fix batch up to `position` was stored. Returns whether it was stored.
    /// The default stores nothing.
    func saveSnapshot(tenant: String, position: Int64, data: Data, now: Date) async throws -> Bool
    /// What rebuilding the tenant's engine replays, read consistently: with `useSnapshot` and
    /// a stored snapshot, the snapshot, the region changes up to its position (``StartupJournal/head``)
    /// and every entry after it (``StartupJournal/tail``); otherwise the whole journal as the tail.
    /// The default is ``journal(tenant:)`` as the tail.
    func startupJournal(tenant: String, useSnapshot: Bool) async throws -> StartupJournal

    // MARK: Retention (ServerStore+Retention)
    /// Deletes, in one transaction, at most `limit` of the tenant's fix batches stored before
    /// `fixesBefore` **and covered by its snapshot**, and at most `limit` of its oldest events
    /// created before `eventsBefore` with no delivery pending (always a prefix in cursor order,
    /// so that ``eventHorizon(tenant:)`` says exactly what is gone). `nil`: keep them. Region
    /// changes are never deleted. The default deletes nothing.
    func prune(tenant: String, fixesBefore: Date?, eventsBefore: Date?, limit: Int) async throws -> PruneCount
    /// The highest event cursor deleted by retention (0: none): a reader resuming after an
    /// older cursor would miss events. The default is 0.
    func eventHorizon(tenant: String) async throws -> Int64

    // MARK: Webhooks
    func addWebhook(_ webhook: Webhook, now: Date) async throws
    func webhooks(tenant: String) async throws -> [Webhook]
    func deleteWebhook(tenant: String, id: String) async throws -> Bool
    /// Pending deliveries due at `now`, oldest first.
    func dueDeliveries(now: Date, limit: Int) async throws -> [DueDelivery]
    /// Records a delivery attempt's outcome.
    func recordAttempt(deliveryID: Int64, outcome: DeliveryOutcome, now: Date) async throws
    /// A webhook's deliveries (newest last), after delivery id `after`.
    func deliveries(tenant: String, webhookID: String, after: Int64, limit: Int) async throws -> [ServerJSON]
}

extension ServerStore {
    /// Stores an admin key hash for `tenant` (creating the tenant).
    public func addAPIKey(tenant: String, keyHash: String, now: Date) async throws {
        try await addAPIKey(tenant: tenant, keyHash: keyHash, scope: .admin, now: now)
    }
    /// The tenant owning the key with this SHA-256 hash (hex), if any.
    public func tenant(forKeyHash keyHash: String) async throws -> String? {
        try await grant(forKeyHash: keyHash)?.tenant
    }
    public var isShared: Bool { false }
    public var commitsBatchesAtomically: Bool { false }
    public func commitFixBatches(tenant: String, _ batches: [FixBatch], now: Date) async throws -> [[StoredEvent]] {
        var out: [[StoredEvent]] = []
        out.reserveCapacity(batches.count)
        for b in batches {
            out.append(
                try await commitFixes(tenant: tenant, device: b.device, fixes: b.fixes, events: b.events, now: now))
        }
        return out
    }
    public func changedTenants() async throws -> [String] { [] }
    public func newerBatches(tenant: String, device: String) async throws -> [[LocationFix]]? { nil }
    public func snapshotPosition(tenant: String) async throws -> Int64? { nil }
    public func saveSnapshot(tenant: String, position: Int64, data: Data, now: Date) async throws -> Bool { false }
    public func prune(tenant: String, fixesBefore: Date?, eventsBefore: Date?, limit: Int) async throws -> PruneCount {
        PruneCount()
    }
    public func eventHorizon(tenant: String) async throws -> Int64 { 0 }
    public func startupJournal(tenant: String, useSnapshot: Bool) async throws -> StartupJournal {
        StartupJournal(snapshot: nil, head: [], tail: try await journal(tenant: tenant))
    }
}

/// One device's accepted fix batch and the events the engine produced for it, as handed to
/// ``ServerStore/commitFixBatches(tenant:_:now:)``.
public struct FixBatch: Sendable {
    public let device: String
    /// The fixes, in time order (never empty).
    public let fixes: [LocationFix]
    /// The events the batch confirmed; their cursors are assigned by the store.
    public let events: [StoredEvent]
    /// The fixes as the journal stores them (``FixJSON/journalText(device:fixes:)``), written
    /// when the batch is made — by the request, on its own thread, not by the commit, which
    /// runs one at a time.
    public let journalText: String
    /// Each of `events` as the outbox stores it (``StoredEvent/outboxText``, in order), written
    /// when the batch is made, like `journalText`.
    public let eventTexts: [String]

    public init(device: String, fixes: [LocationFix], events: [StoredEvent]) {
        self.device = device
        self.fixes = fixes
        self.events = events
        journalText = FixJSON.journalText(device: device, fixes: fixes)
        eventTexts = events.map(\.outboxText)
    }

    /// The batch's events with the cursors a store assigned them (by event id).
    func events(withCursors cursors: [String: Int64]) -> [StoredEvent] {
        events.map { e in
            var e = e
            e.cursor = cursors[e.id] ?? 0
            return e
        }
    }
}

/// One step of a tenant's history, replayed in order into its engine.
public enum JournalEntry: Sendable {
    case upsert([Region])
    case delete(String)
    case fixes([LocationFix])
}

/// A webhook endpoint registered by a tenant.
public struct Webhook: Sendable, Hashable {
    public var id: String
    public var tenant: String
    public var url: String
    /// The HMAC-SHA256 key for the signature header.
    public var secret: String

    public init(id: String, tenant: String, url: String, secret: String) {
        self.id = id
        self.tenant = tenant
        self.url = url
        self.secret = secret
    }
}

/// A delivery the webhook worker should attempt now.
public struct DueDelivery: Sendable, Hashable {
    public var id: Int64
    public var eventID: String
    public var attempts: Int
    public var url: String
    public var secret: String
    /// The event's JSON body, exactly as it will be sent.
    public var body: Data
}

/// What one delivery attempt came to.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The receiver answered 2xx: never sent again.
    case delivered(status: Int)
    /// Failed; retry at `nextAttempt`, or give up when it is `nil`.
    case failed(status: Int?, error: String, nextAttempt: Date?)
}
