import Foundation

/// When a tenant's engine is checkpointed (``ServerConfiguration/snapshots``; docs/server.md,
/// "Snapshots"): after a commit that brings the fixes committed since the last snapshot to
/// ``everyFixes`` — unless snapshots would then take more than ``maximumShare`` of the
/// tenant's time — or, when at least one fix was committed, ``interval`` after the last one.
///
/// A snapshot has a cost per snapshot whatever the rate — the queued batches' commits, the
/// export, one transaction — that competes with ingestion for the CPU and the store: counted in
/// fixes alone, a tenant ingesting 470,000 fixes/s spent 9 % of its time in snapshots on
/// PostgreSQL (when a snapshot still held the tenant throughout; docs/server.md). The share bound
/// defers a due snapshot until the time since the last one ended is at least
/// `cost × (1 / maximumShare − 1)`, so the journal tail a start-up replays is at most about
/// `max(everyFixes, rate × cost × 19)` fixes.
public struct SnapshotSchedule: Sendable, Hashable {
    /// Fixes between snapshots. 100,000 by default: start-up replays at most about that many
    /// fixes per tenant (≈ 0.15 s at the measured replay rate, docs/server.md) and a tenant
    /// ingesting 10,000 fixes/s writes one snapshot every 10 s.
    public var everyFixes: Int = 100_000
    /// The longest a tenant that receives fixes goes without a snapshot: 10 minutes by default.
    /// Retention cannot prune fixes a snapshot does not cover yet, so this also bounds how long
    /// fixes outlive their retention.
    public var interval: Duration = .seconds(600)
    /// `false`: never snapshot (every start-up replays the whole journal).
    public var isEnabled = true
    /// The largest share of a tenant's time its fix-count snapshots may take: 5 % by default.
    public var maximumShare: Double = 0.05

    public init(everyFixes: Int = 100_000, interval: Duration = .seconds(600), isEnabled: Bool = true) {
        self.everyFixes = everyFixes
        self.interval = interval
        self.isEnabled = isEnabled
    }

    /// Whether a snapshot is due with `fixes` committed since the last one, taken at `last`;
    /// `lastCost` is how long the last one took, `sinceLastEnded` the time since it
    /// ended (both `nil` before the first).
    func isDue(
        fixes: Int, last: Date?, now: Date, lastCost: Duration? = nil, sinceLastEnded: Duration? = nil
    ) -> Bool {
        guard isEnabled, fixes > 0 else { return false }
        if fixes >= everyFixes, withinShare(lastCost: lastCost, sinceLastEnded: sinceLastEnded) { return true }
        guard let last else { return false }
        return now.timeIntervalSince(last) >= interval.seconds
    }

    /// Whether one more snapshot now keeps snapshots within ``maximumShare`` of the time.
    func withinShare(lastCost: Duration?, sinceLastEnded: Duration?) -> Bool {
        guard let lastCost, let sinceLastEnded, maximumShare > 0, maximumShare < 1 else { return true }
        return sinceLastEnded.seconds >= lastCost.seconds * (1 / maximumShare - 1)
    }
}
