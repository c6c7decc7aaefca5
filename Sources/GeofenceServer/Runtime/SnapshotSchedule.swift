import Foundation

/// When a tenant's engine is checkpointed (``ServerConfiguration/snapshots``; docs/server.md,
/// "Snapshots"): after a commit that brings the fixes committed since the last snapshot to
/// ``everyFixes``, or, when at least one fix was committed, ``interval`` after the last one.
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

    public init(everyFixes: Int = 100_000, interval: Duration = .seconds(600), isEnabled: Bool = true) {
        self.everyFixes = everyFixes
        self.interval = interval
        self.isEnabled = isEnabled
    }

    /// Whether a snapshot is due with `fixes` committed since the last one, taken at `last`.
    func isDue(fixes: Int, last: Date?, now: Date) -> Bool {
        guard isEnabled, fixes > 0 else { return false }
        if fixes >= everyFixes { return true }
        guard let last else { return false }
        return now.timeIntervalSince(last) >= interval.seconds
    }
}
