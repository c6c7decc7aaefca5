import Foundation
import Geofencing

/// A tenant's engine snapshot as stored (``ServerStore/saveSnapshot(tenant:position:data:now:)``).
public struct StoredSnapshot: Sendable {
    /// The journal position it covers: every entry up to it (inclusive) is in the snapshot.
    public var position: Int64
    /// The ``Engine/subjectSnapshot()`` bytes.
    public var data: Data
    public var takenAt: Date

    public init(position: Int64, data: Data, takenAt: Date) {
        self.position = position
        self.data = data
        self.takenAt = takenAt
    }
}

/// What rebuilding a tenant's engine replays (``ServerStore/startupJournal(tenant:useSnapshot:)``):
/// `head` (the regions the snapshot was taken over), then the snapshot's subjects, then `tail`.
/// Without a snapshot, `head` is empty and `tail` is the whole journal.
public struct StartupJournal: Sendable {
    public var snapshot: StoredSnapshot?
    /// The region changes (upserts and deletes, in order) up to the snapshot's position.
    public var head: [JournalEntry]
    /// Every entry after the snapshot's position, in order.
    public var tail: [JournalEntry]

    public init(snapshot: StoredSnapshot?, head: [JournalEntry], tail: [JournalEntry]) {
        self.snapshot = snapshot
        self.head = head
        self.tail = tail
    }
}

extension JournalEntry {
    /// One stored journal row (`kind`: `upsert` | `delete` | `fixes`) read back, the same way
    /// in every store.
    static func decode(kind: String, body: String, tenant: String) throws -> JournalEntry {
        switch kind {
        case "delete":
            return .delete(body)
        case "upsert":
            guard case .array(let fs) = (try? ServerJSON.parse(Data(body.utf8))) ?? .null else {
                throw StoreError.corruptJournal(tenant: tenant)
            }
            return .upsert(try fs.map { f throws(Problem) in try RegionJSON.storedRegion(from: f) })
        case "fixes":
            guard let v = try? ServerJSON.parse(Data(body.utf8)), let fixes = FixJSON.fixes(journal: v) else {
                throw StoreError.corruptJournal(tenant: tenant)
            }
            return .fixes(fixes)
        default:
            throw StoreError.corruptJournal(tenant: tenant)
        }
    }
}

/// What one ``ServerStore/prune(tenant:fixesBefore:eventsBefore:limit:)`` deleted.
public struct PruneCount: Sendable, Hashable {
    /// Fix batches (journal entries) deleted.
    public var fixBatches = 0
    /// Events (with their finished deliveries) deleted.
    public var events = 0
    /// Delivery log entries (notifications no longer pending) deleted.
    public var notifications = 0

    public init(fixBatches: Int = 0, events: Int = 0, notifications: Int = 0) {
        self.fixBatches = fixBatches
        self.events = events
        self.notifications = notifications
    }
}
