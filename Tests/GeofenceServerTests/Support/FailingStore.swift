import Foundation
import GeofenceServer
import Geofencing
import NIOConcurrencyHelpers

/// A store that forwards everything to a real one but makes chosen fix commits fail (the
/// n-th call of ``commitFixBatches(tenant:_:now:)`` for n in `failing`), writing nothing, and
/// can hold each fix commit and each snapshot write until the test lets it go (`beforeCommit`,
/// `beforeSnapshotWrite`).
final class FailingStore: ServerStore {
    struct InjectedFailure: Error {}
    let base: any ServerStore
    let failing: Set<Int>
    private let calls = NIOLockedValueBox(0)
    /// Awaited at the start of every ``saveSnapshot(tenant:position:data:now:)``.
    let beforeSnapshotWrite: @Sendable () async -> Void
    /// Awaited at the start of every ``commitFixBatches(tenant:_:now:)``, with its `now`.
    let beforeCommit: @Sendable (_ now: Date) async -> Void

    init(
        _ base: any ServerStore, failing: Set<Int>,
        beforeCommit: @escaping @Sendable (_ now: Date) async -> Void = { _ in },
        beforeSnapshotWrite: @escaping @Sendable () async -> Void = {}
    ) {
        self.base = base
        self.failing = failing
        self.beforeCommit = beforeCommit
        self.beforeSnapshotWrite = beforeSnapshotWrite
    }

    /// How many group commits were asked for.
    var commitCalls: Int { calls.withLockedValue { $0 } }

    func commitFixBatches(tenant: String, _ batches: [FixBatch], now: Date) async throws -> [[StoredEvent]] {
        let n = calls.withLockedValue {
            $0 += 1
            return $0
        }
        await beforeCommit(now)
        if failing.contains(n) { throw InjectedFailure() }
        return try await base.commitFixBatches(tenant: tenant, batches, now: now)
    }
    var commitsBatchesAtomically: Bool { base.commitsBatchesAtomically }
    var isShared: Bool { base.isShared }

    func migrate() async throws { try await base.migrate() }
    func close() async throws { try await base.close() }
    func addAPIKey(tenant: String, keyHash: String, scope: KeyScope, now: Date) async throws {
        try await base.addAPIKey(tenant: tenant, keyHash: keyHash, scope: scope, now: now)
    }
    func grant(forKeyHash keyHash: String) async throws -> KeyGrant? { try await base.grant(forKeyHash: keyHash) }
    func tenants() async throws -> [String] { try await base.tenants() }
    func changedTenants() async throws -> [String] { try await base.changedTenants() }
    func upsertRegions(tenant: String, _ regions: [Region], now: Date) async throws {
        try await base.upsertRegions(tenant: tenant, regions, now: now)
    }
    func deleteRegion(tenant: String, id: String, now: Date) async throws -> Bool {
        try await base.deleteRegion(tenant: tenant, id: id, now: now)
    }
    func region(tenant: String, id: String) async throws -> ServerJSON? {
        try await base.region(tenant: tenant, id: id)
    }
    func settings(tenant: String, device: String?) async throws -> (tenant: ServerJSON?, device: ServerJSON?) {
        try await base.settings(tenant: tenant, device: device)
    }
    func putSettings(tenant: String, device: String?, _ document: ServerJSON, now: Date) async throws {
        try await base.putSettings(tenant: tenant, device: device, document, now: now)
    }
    func listRegions(tenant: String, after: String?, limit: Int) async throws -> [(id: String, feature: ServerJSON)] {
        try await base.listRegions(tenant: tenant, after: after, limit: limit)
    }
    func commitFixes(
        tenant: String, device: String, fixes: [LocationFix], events: [StoredEvent], now: Date
    ) async throws -> [StoredEvent] {
        try await commitFixBatches(tenant: tenant, [FixBatch(device: device, fixes: fixes, events: events)], now: now)[
            0]
    }
    func events(tenant: String, after cursor: Int64, limit: Int) async throws -> [ServerJSON] {
        try await base.events(tenant: tenant, after: cursor, limit: limit)
    }
    func eventHistory(
        tenant: String, filter: EventFilter, before: Int64?, limit: Int, scan: Int
    ) async throws -> HistoryPage {
        try await base.eventHistory(tenant: tenant, filter: filter, before: before, limit: limit, scan: scan)
    }
    func deviceList(
        tenant: String, prefix: String?, after: DeviceCursor?, limit: Int, scan: Int
    ) async throws -> DevicePage {
        try await base.deviceList(tenant: tenant, prefix: prefix, after: after, limit: limit, scan: scan)
    }
    func recordBattery(tenant: String, device: String, percent: Double, at time: Double) async throws {
        try await base.recordBattery(tenant: tenant, device: device, percent: percent, at: time)
    }
    func batteries(tenant: String, devices: [String]) async throws -> [String: BatteryReport] {
        try await base.batteries(tenant: tenant, devices: devices)
    }
    func fixBatches(tenant: String, device: String, before: Int64?, limit: Int) async throws -> [JournalBatch] {
        try await base.fixBatches(tenant: tenant, device: device, before: before, limit: limit)
    }
    func journal(tenant: String) async throws -> [JournalEntry] { try await base.journal(tenant: tenant) }
    func snapshotPosition(tenant: String) async throws -> Int64? { try await base.snapshotPosition(tenant: tenant) }
    func saveSnapshot(tenant: String, position: Int64, data: Data, now: Date) async throws -> Bool {
        await beforeSnapshotWrite()
        return try await base.saveSnapshot(tenant: tenant, position: position, data: data, now: now)
    }
    func startupJournal(tenant: String, useSnapshot: Bool) async throws -> StartupJournal {
        try await base.startupJournal(tenant: tenant, useSnapshot: useSnapshot)
    }
    func prune(tenant: String, fixesBefore: Date?, eventsBefore: Date?, limit: Int) async throws -> PruneCount {
        try await base.prune(tenant: tenant, fixesBefore: fixesBefore, eventsBefore: eventsBefore, limit: limit)
    }
    func eventHorizon(tenant: String) async throws -> Int64 { try await base.eventHorizon(tenant: tenant) }
    func newerBatches(tenant: String, device: String) async throws -> [[LocationFix]]? {
        try await base.newerBatches(tenant: tenant, device: device)
    }
    func addWebhook(_ webhook: Webhook, now: Date) async throws { try await base.addWebhook(webhook, now: now) }
    func webhooks(tenant: String) async throws -> [Webhook] { try await base.webhooks(tenant: tenant) }
    func deleteWebhook(tenant: String, id: String) async throws -> Bool {
        try await base.deleteWebhook(tenant: tenant, id: id)
    }
    func dueDeliveries(now: Date, limit: Int) async throws -> [DueDelivery] {
        try await base.dueDeliveries(now: now, limit: limit)
    }
    func recordAttempt(deliveryID: Int64, outcome: DeliveryOutcome, now: Date) async throws {
        try await base.recordAttempt(deliveryID: deliveryID, outcome: outcome, now: now)
    }
    func deliveries(tenant: String, webhookID: String, after: Int64, limit: Int) async throws -> [ServerJSON] {
        try await base.deliveries(tenant: tenant, webhookID: webhookID, after: after, limit: limit)
    }
}

extension FailingStore {
    /// Holds the store a harness wrapped, for the test to inspect.
    final class Box: @unchecked Sendable {
        private let lock = NIOLock()
        private var store: FailingStore?
        func wrap(_ base: any ServerStore, failing: Set<Int>) -> any ServerStore {
            let s = FailingStore(base, failing: failing)
            lock.withLock { store = s }
            return s
        }
        var wrapped: FailingStore? { lock.withLock { store } }
    }
}
