import Foundation
import Geodesy
import Geofencing
import Logging

/// One tenant's live engine: its regions and every device's state, in memory, kept equal to
/// what the store holds.
///
/// Every change goes through the tenant's lock: a region change is validated, committed, then
/// applied; a fix batch is checked (order, validity), run through the engine, and committed
/// with its events in one transaction, together with the batches of concurrent requests
/// (group commit, ``TenantRuntime+GroupCommit``). No request is answered before its batch is committed; if a commit
/// fails the engine is rebuilt from the store, so memory never runs ahead of what was
/// acknowledged.
///
/// Reads of device state and region changes first wait for queued commits, so they see and
/// build on committed state only.
actor TenantRuntime {
    let tenant: String
    let store: any ServerStore
    let policy: HysteresisPolicy
    /// The engine, split by device into shards that run batches in parallel
    /// (``EngineShards``, ``TenantRuntime+Shards``).
    var shards: EngineShards
    /// How many shards ``shards`` has (fixed for the runtime's life).
    let shardCount: Int
    /// Shard locks and the engines taken out of ``shards`` (``TenantRuntime+Shards``).
    var shardLocks: [ShardLock]
    var enginesOut = 0
    var homeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Moves whenever the engine is invalidated or rebuilt: a batch run off the actor on a
    /// shard taken out under an older generation is not committed.
    var engineGeneration = 0
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Group commit state (``TenantRuntime+GroupCommit``): batches run through the engine and
    /// not yet committed, in engine order; whether a commit is under way; who waits for both to
    /// be empty.
    var queue: [QueuedBatch] = []
    var committing = false
    /// Per device, how many of its batches are queued or being committed.
    var inFlight: [String: Int] = [:]
    /// Devices another instance was found to have written (a stale commit): their batches
    /// catch up from the store first (shared stores only).
    var contended: Set<String> = []
    var settleWaiters: [CheckedContinuation<Void, Never>] = []
    /// The regions arranged for `nearby` queries; `nil` until the first one (and after a
    /// rebuild), then kept in step with `engine`'s regions.
    var nearbyIndex: NearbyIndex? = nil
    /// The regions arranged for the map and list reads, read without this runtime's lock
    /// (``RegionCatalog``); every region change below is applied to it too.
    let catalog = RegionCatalog()
    /// The devices inside each region (``InsideIndex``): updated after every batch the engine
    /// runs, rebuilt with the engine.
    var insideIndex = InsideIndex()

    let metrics: ServerMetrics
    let logger: Logger
    /// When to checkpoint the engine (``TenantRuntime+Snapshots``).
    let snapshotSchedule: SnapshotSchedule
    /// Fixes committed since the last snapshot (or load), when it was taken, and whether one
    /// is being taken.
    var fixesSinceSnapshot = 0
    var lastSnapshotAt: Date? = nil
    var snapshotting = false
    /// How long the last snapshot took, and when it ended (``SnapshotSchedule``'s
    /// share bound).
    var lastSnapshotCost: Duration? = nil
    var lastSnapshotEnded: ContinuousClock.Instant? = nil
    /// The position of the snapshot the engine was last rebuilt from (`nil`: a full replay).
    var restoredFrom: Int64? = nil
    /// How many times the engine was loaded from the store (``loadEngine()`` restarts
    /// ``fixesSinceSnapshot``): a snapshot whose write outlives a load leaves the count alone.
    var engineLoads = 0
    /// The latest `now` of a fix batch this runtime committed: the earliest time a snapshot's
    /// journal mark may claim for the batches it covers.
    var lastCommitAt: Date? = nil
    /// The regions' part of the last snapshot, reused while the regions are unchanged.
    var snapshotCache = SnapshotCache()
    /// The snapshot under way, if any (tests wait for it).
    var snapshotTask: Task<Void, Never>? = nil

    init(
        tenant: String, store: any ServerStore, policy: HysteresisPolicy, metrics: ServerMetrics = ServerMetrics(),
        snapshotSchedule: SnapshotSchedule = SnapshotSchedule(), engineShards: Int = EngineShards.defaultCount,
        logger: Logger = Logger(label: "geofence.tenant")
    ) {
        self.tenant = tenant
        self.store = store
        self.policy = policy
        self.metrics = metrics
        self.snapshotSchedule = snapshotSchedule
        self.logger = logger
        self.shardCount = max(1, engineShards)
        self.shards = EngineShards(policy: policy, count: shardCount)
        self.shardLocks = Array(repeating: ShardLock(), count: shardCount)
    }

    /// The whole engine as one value (every shard's devices in one engine): for tests.
    var engine: Engine { shards.merged }

    func acquire() async {
        if !locked {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { locked = false } else { waiters.removeFirst().resume() }
    }

    /// Whether `engine` is valid; `false` before the first load, after a failed commit and after an
    /// engine error, until the next ``enter()`` rebuilds it.
    var loaded = false

    /// Takes the lock once every shard is back in ``shards``, loading the engine from the
    /// journal on first use (or after a failed commit; the group commits still queued are let
    /// finish first).
    func enter() async throws {
        await acquire()
        await shardsHome()
        do { try await loadIfInvalid() } catch {
            release()
            throw error
        }
    }

    /// Takes the lock once every fix batch already run through the engine is committed (or
    /// failed), so the engine holds committed state only: for region changes, whose journal
    /// entries must follow those batches, and for reads of device state.
    func enterSettled() async throws {
        await acquire()
        await shardsHome()
        await settle()
        do { try await loadIfInvalid() } catch {
            release()
            throw error
        }
    }

    /// With the lock held: when the engine is not valid (first use, a failed commit, an engine
    /// error), rebuilds it once every shard is back and the commits still queued have finished.
    /// The lock stays held, also when it throws.
    func loadIfInvalid() async throws {
        guard !loaded else { return }
        await shardsHome()
        await settle()
        try await rebuildLocked()
    }

    // MARK: Rebuild

    /// Rebuilds the engine from the store — its snapshot plus the journal after it, or the
    /// whole journal (start-up, or after a failed commit).
    func rebuild() async throws {
        await acquire()
        defer { release() }
        await settle()
        try await rebuildLocked()
    }

    /// Replaces the engine with the store's (the tenant's lock held); waits for every shard
    /// taken out to come back first.
    func rebuildLocked() async throws {
        await shardsHome()
        invalidate()
        nearbyIndex = nil
        shards = EngineShards(try await loadEngine(), count: shardCount)
        insideIndex = InsideIndex.build(devices: shards.subjects) { shards.regionsContaining(subject: $0) }
        catalog.replace(with: shards.regions)
        loaded = true
    }

    /// Marks the engine invalid (it may be ahead of the store, or half-updated): the next
    /// ``enter()`` rebuilds it, and batches run on shards taken out before are not committed.
    func invalidate() {
        loaded = false
        engineGeneration &+= 1
    }

    /// The engine the journal describes.
    ///
    /// Region changes with no fix batch between them are coalesced and applied as one bulk
    /// ``Engine/add(contentsOf:)`` (deletes first, then the last version of each upserted id):
    /// no subject saw the intermediate states, so the engine is the same as replaying them
    /// one by one, and a tenant's regions imported in many requests load in one index build.
    static func replay(_ journal: [JournalEntry], policy: HysteresisPolicy) throws -> Engine {
        var engine = Engine(policy: policy)
        try replay(journal, into: &engine)
        return engine
    }

    /// Applies journal entries to `engine`, as ``replay(_:policy:)`` does to a fresh one.
    static func replay(_ journal: [JournalEntry], into engine: inout Engine) throws {
        var upserts: [String: Region] = [:]
        var order: [String] = []
        var deletes: Set<String> = []
        func flush() throws {
            for id in deletes { engine.remove(identifier: id) }
            // A region stored under older, looser rules that the engine now refuses (e.g. a
            // self-intersecting ring) is set aside rather than failing the whole tenant's load.
            let valid = order.compactMap { upserts[$0] }.filter { (try? $0.validate()) != nil }
            if !valid.isEmpty { try engine.add(contentsOf: valid) }
            upserts = [:]
            order = []
            deletes = []
        }
        for entry in journal {
            switch entry {
            case .upsert(let regions):
                for r in regions {
                    if upserts.updateValue(r, forKey: r.identifier) == nil { order.append(r.identifier) }
                }
            case .delete(let id):
                if upserts.removeValue(forKey: id) != nil { order.removeAll { $0 == id } }
                deletes.insert(id)
            case .fixes(let fixes):
                try flush()
                for f in fixes { _ = try? engine.process(f) }
            }
        }
        try flush()
    }

    // MARK: Regions

    /// Stores and applies regions. With `create`, an existing id is a 409.
    func upsert(_ regions: [Region], create: Bool, now: Date) async throws -> [Bool] {
        try await enterSettled()
        defer { release() }
        return try await retryingStale { try await self.upsertLocked(regions, create: create, now: now) }
    }

    private func upsertLocked(_ regions: [Region], create: Bool, now: Date) async throws -> [Bool] {
        var seen = Set<String>()
        for (i, r) in regions.enumerated() where !seen.insert(r.identifier).inserted {
            throw Problem.badRequest(
                field: "features[\(i)].properties.id", detail: "region id \"\(r.identifier)\" appears more than once")
        }
        let existed = regions.map { shards.region(identifier: $0.identifier) != nil }
        if create, existed.first == true {
            throw Problem(
                status: .conflict,
                detail: "region \"\(regions[0].identifier)\" exists; PUT /v1/regions/{id} replaces it",
                field: "properties.id")
        }
        let newCount = existed.filter { !$0 }.count
        if shards.regionCount + newCount > Engine.maximumRegionCount {
            throw Problem(
                status: .unprocessableContent, detail: "a tenant holds at most \(Engine.maximumRegionCount) regions")
        }
        try await store.upsertRegions(tenant: tenant, regions, now: now)
        do { try shards.add(contentsOf: regions) } catch {
            try await rebuildLocked()
            throw error
        }
        for r in regions { nearbyIndex?.insert(r) }
        catalog.upsert(regions)
        return existed
    }

    func delete(id: String, now: Date) async throws -> Bool {
        try await enterSettled()
        defer { release() }
        return try await retryingStale {
            guard try await self.store.deleteRegion(tenant: self.tenant, id: id, now: now) else { return false }
            self.shards.remove(identifier: id)
            self.insideIndex.forget(region: id)
            self.nearbyIndex?.remove(id)
            self.catalog.delete(id)
            return true
        }
    }

    // MARK: Fixes

    /// Runs a batch of one device's fixes through the engine and commits it with its events.
    /// Nothing changes when any fix is out of order (409 naming it, with the device's
    /// `lastAcceptedTimestamp`).
    ///
    /// A batch that ends exactly with the device's last accepted fix (same time, position and
    /// accuracy) and starts no later is a client's retry of a batch that was committed but
    /// whose answer was lost: it is answered as a ``IngestResult/duplicate`` and changes
    /// nothing, so re-sending an unanswered batch is always safe. One that holds the last fix
    /// again and goes on past it is a 409, as an older fix is: never stored twice.
    ///
    /// With a store that commits several batches in one transaction
    /// (``ServerStore/commitsBatchesAtomically``: SQLite and PostgreSQL), batches are
    /// **group-committed**: the lock is held only while a batch runs through the engine; the
    /// batch then joins a queue, and one commit at a time takes everything queued (see
    /// ``TenantRuntime+GroupCommit``). Each request is answered only after the commit holding
    /// its batch, so a 2xx still means durable. Otherwise the lock is held across the commit.
    func ingest(device: String, fixes: [LocationFix], fieldPrefix: String, now: Date) async throws -> IngestResult {
        if store.commitsBatchesAtomically {
            return try await ingestGrouped(device: device, fixes: fixes, fieldPrefix: fieldPrefix, now: now)
        }
        try await enter()
        defer { release() }
        return try await retryingStale {
            try await self.ingestLocked(device: device, fixes: fixes, fieldPrefix: fieldPrefix, now: now)
        }
    }

    /// The checks of a batch against the engine: `true` when it is a retry of the device's last
    /// committed (or queued) batch; throws a 409 problem when a fix is out of order.
    func check(device: String, fixes: [LocationFix], fieldPrefix: String) throws -> Bool {
        /// The JSON path of fix `i`'s timestamp ("timestamp" for a single-fix body).
        func field(_ i: Int) -> String { fieldPrefix == "body" ? "timestamp" : "\(fieldPrefix)[\(i)].timestamp" }
        if let last = shards.lastFix(of: device), let first = fixes.first, let final = fixes.last {
            if final == last, first.timestamp <= last.timestamp { return true }
            if first.timestamp < last.timestamp {
                throw Problem(
                    status: .conflict,
                    detail:
                        "\(field(0)) \(FixJSON.formatRFC3339(first.timestamp)) is older than the device's last accepted fix at \(FixJSON.formatRFC3339(last.timestamp))",
                    field: field(0),
                    extensions: ["lastAcceptedTimestamp": .string(FixJSON.formatRFC3339(last.timestamp))])
            }
            // A batch that starts at the last fix's time and holds that fix again: a retry with
            // new fixes appended. Stored, it would hold the fix twice.
            if let i = fixes.prefix(while: { $0.timestamp == last.timestamp }).firstIndex(where: {
                $0.isSameObservation(as: last)
            }) {
                throw Problem(
                    status: .conflict,
                    detail:
                        "\(field(i)) is the device's last accepted fix again (same time and position); send the fixes after it",
                    field: field(i),
                    extensions: ["lastAcceptedTimestamp": .string(FixJSON.formatRFC3339(last.timestamp))])
            }
        }
        for i in fixes.indices.dropFirst() where fixes[i].timestamp < fixes[i - 1].timestamp {
            throw Problem(
                status: .conflict, detail: "\(field(i)) is older than the fix before it; a batch must be in time order",
                field: field(i))
        }
        return false
    }

    /// Runs a checked batch through its device's shard, in place; on an engine error the
    /// engine is marked for a rebuild (it may be half-updated) and the error is a 400 naming
    /// `fieldPrefix`.
    func run(device: String, fixes: [LocationFix], fieldPrefix: String) throws(Problem) -> [StoredEvent] {
        switch Self.run(fixes, on: &shards[device: device], tenant: tenant) {
        case .success(let events):
            noteInside(device: device)
            return events
        case .failure(let error):
            invalidate()
            throw Problem.badRequest(field: fieldPrefix, detail: "\(error)")
        }
    }

    /// Lists `device` under the regions its shard has it inside now (``InsideIndex``): called
    /// wherever fixes of the device ran and its shard is in place again.
    func noteInside(device: String) {
        insideIndex.update(device: device, inside: shards.regionsContaining(subject: device))
    }

    /// Runs fixes through `engine` and names their events for the store (each its own id).
    static func run(
        _ fixes: [LocationFix], on engine: inout Engine, tenant: String
    ) -> Result<[StoredEvent], GeofencingError> {
        var events: [TransitionEvent] = []
        do {
            for f in fixes { events.append(contentsOf: try engine.process(f)) }
        } catch {
            return .failure(error)
        }
        return .success(events.map { StoredEvent(id: UUID().uuidString.lowercased(), tenant: tenant, event: $0) })
    }

    private func ingestLocked(
        device: String, fixes: [LocationFix], fieldPrefix: String, now: Date
    ) async throws -> IngestResult {
        if store.isShared { try await catchUp(device: device) }
        if try check(device: device, fixes: fixes, fieldPrefix: fieldPrefix) { return .duplicate }
        let stored: [StoredEvent]
        do { stored = try run(device: device, fixes: fixes, fieldPrefix: fieldPrefix) } catch {
            try await rebuildLocked()
            throw error
        }
        do {
            let committed = try await store.commitFixes(
                tenant: tenant, device: device, fixes: fixes, events: stored, now: now)
            metrics.commits.increment()
            noteCommitted(fixes: fixes.count, now: now)
            return .committed(committed)
        } catch let error as StoreError {
            switch error {
            case .staleView, .staleDevice: throw error // retryingStale catches the engine up
            default:
                try? await rebuildLocked()
                throw error
            }
        } catch {
            try? await rebuildLocked()
            throw error
        }
    }

    // MARK: Other instances

    /// Runs a write; when the store reports that another instance got there first (nothing
    /// written: ``StoreError/staleView(tenant:)`` or ``StoreError/staleDevice(tenant:device:)``),
    /// replays the journal into a fresh engine and runs it again — at most 16 times, then gives
    /// up with that error.
    private func retryingStale<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do { return try await body() } catch let error as StoreError where attempt < 16 {
                switch error {
                case .staleView, .staleDevice:
                    attempt += 1
                    try await rebuildLocked()
                default: throw error
                }
            }
        }
    }

    /// Before a batch: applies the device's batches that other instances committed since this
    /// engine saw it (``ServerStore/newerBatches(tenant:device:)``; nothing to do, and no I/O,
    /// with a store only this process uses). When the regions changed too, rebuilds.
    func catchUp(device: String) async throws {
        guard let batches = try await store.newerBatches(tenant: tenant, device: device) else {
            if store.isShared {
                await shardsHome()
                await settle() // queued batches fail (stale) or commit before the engine is replaced
                try await rebuildLocked()
            }
            return
        }
        for batch in batches { for f in batch { _ = try? shards.process(f) } }
        noteInside(device: device)
    }

    // MARK: Reads

    /// The device's last fix and per-region states, or `nil` for a device never seen.
    func state(device: String, regions: [String]?) async throws -> DeviceState? {
        try await enterSettled()
        defer { release() }
        guard let last = shards.lastFix(of: device) else { return nil }
        let asked: [(String, RegionState?)]? = regions.map { ids in
            ids.map { ($0, shards.region(identifier: $0) == nil ? nil : shards.state(of: device, in: $0)) }
        }
        return DeviceState(
            lastFix: last, inside: shards.regionsContaining(subject: device).sorted(),
            pending: shards.pendingRegions(of: device).sorted(), asked: asked)
    }

    /// The `limit` regions nearest to `point` (by distance to the boundary, 0 inside) among
    /// those within `radius` metres, from the tenant's ``NearbyIndex`` (built on the first
    /// query, then kept up to date with every region change): bounded work however far the
    /// nearest region is.
    func nearby(_ point: Coordinate, radius: Double, limit: Int) async throws -> NearbyAnswer {
        try await enter()
        defer { release() }
        if nearbyIndex == nil { nearbyIndex = NearbyIndex(regions: shards.regions) }
        let answer = nearbyIndex!.nearest(to: point, radius: radius, limit: limit)
        let farthest = answer.regions.last?.distance
        return NearbyAnswer(
            regions: answer.regions.map { ($0.region.identifier, $0.distance) },
            replanRadius: farthest.map { max(50, $0) } ?? radius / 2,
            stableRadius: (answer.nextDistance - (farthest ?? 0)) / 2,
            shapes: answer.regions.map(\.region))
    }
}

/// What became of a fix batch.
enum IngestResult: Sendable {
    /// Committed, with the events it confirmed (cursors assigned).
    case committed([StoredEvent])
    /// A retry of the batch already committed last for this device: nothing changed.
    case duplicate
}

/// The answer to `GET /v1/devices/{id}/state`.
struct DeviceState: Sendable {
    var lastFix: LocationFix
    var inside: [String]
    var pending: [String]
    /// States of the regions the caller asked about (`nil` state: no such region).
    var asked: [(String, RegionState?)]?
}

/// The answer to `GET /v1/regions/nearby`.
struct NearbyAnswer: Sendable {
    var regions: [(id: String, distance: Double)]
    /// Move this far and the set may have changed: the boundary distance of the farthest one
    /// returned (at least 50 m); half the search radius when none was found.
    var replanRadius: Double
    /// Move less than this and no region left out can become nearer than one returned (half
    /// the gap between the farthest returned and a lower bound on every other; the search
    /// radius bounds the regions beyond it).
    var stableRadius: Double
    /// The chosen regions themselves, in the same order.
    var shapes: [Region]
}
