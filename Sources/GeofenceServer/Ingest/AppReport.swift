import Foundation
import Geofencing

/// What became of one tracking-app request: fixes committed, and reports set aside by reason.
struct AppReportOutcome: Sendable, Equatable {
    var accepted = 0
    var setAside: [SetAsideReason: Int] = [:]
}

extension GeofenceServer {
    /// The answer policy of the app routes (docs/server.md, "Answer policy"): every report the
    /// server understands is answered as delivered; the fixes it can use go through
    /// ``ingest(tenant:device:fixes:fieldPrefix:now:)`` exactly as the JSON API's would, and the
    /// rest are set aside and counted (``SetAsideReason``, ``SetAsideLedger``, the metric).
    ///
    /// Only a message that can never become valid throws (a 400 naming the field: a latitude
    /// of 95, a number that is not one); the apps' own code never produces one.
    ///
    /// - Parameters:
    ///   - fixes: the report's fixes in the order sent; none for a heartbeat.
    ///   - distrusted: the app marked its fix invalid (`valid=false`).
    func ingestAppReport(
        tenant: String, device: String, fixes: [ProtocolFix], distrusted: Bool, now: Date
    ) async throws -> AppReportOutcome {
        var outcome = AppReportOutcome()
        // Every fix is checked first, so a malformed one is refused before anything is stored.
        var located: [LocationFix] = []
        for fix in fixes { located.append(try fix.locationFix(device: device, window: ProtocolFix.anyTime)) }
        if located.isEmpty {
            outcome.setAside[distrusted ? .distrusted : .noPosition] = 1
        } else if distrusted {
            outcome.setAside[.distrusted] = located.count
        } else {
            let window = configuration.fixTimeWindow.range(now: now)
            var usable: [LocationFix] = []
            for fix in located {
                if !window.contains(fix.timestamp) {
                    outcome.setAside[.clock, default: 0] += 1
                } else if let previous = usable.last, fix.timestamp < previous.timestamp {
                    outcome.setAside[.older, default: 0] += 1
                } else if usable.reversed().prefix(while: { $0.timestamp == fix.timestamp }).contains(where: {
                    $0.isSameObservation(as: fix)
                }) {
                    outcome.setAside[.duplicate, default: 0] += 1
                } else {
                    usable.append(fix)
                }
            }
            try await commit(usable, tenant: tenant, device: device, now: now, into: &outcome)
        }
        for (reason, count) in outcome.setAside {
            metrics.setAside[reason]?.increment(by: count)
            await setAside.record(tenant: tenant, device: device, reason: reason, count: count, now: now)
        }
        return outcome
    }

    /// Keeps a report's battery level for the device list (one write, only when the report
    /// carries a level), stamped with the report's time (``BatteryLevel/time(reported:now:)``).
    func keepBattery(
        _ percent: Double?, reportedAt: Date?, tenant: String, device: String, now: Date
    ) async throws {
        guard let percent else { return }
        try await store.recordBattery(
            tenant: tenant, device: device, percent: percent, at: BatteryLevel.time(reported: reportedAt, now: now))
    }

    /// Commits `fixes` (in time order, in the window), first setting aside those older than
    /// the device's last accepted fix and those it already holds (a retry that appended new
    /// fixes: ``RetriedFixes``). A concurrent report of the same device can move that fix
    /// between the check and the commit, so the commit is tried a few times; past that the
    /// answer is a 503, which every app retries.
    private func commit(
        _ fixes: [LocationFix], tenant: String, device: String, now: Date, into outcome: inout AppReportOutcome
    ) async throws {
        var fixes = fixes
        for _ in 0..<Self.appCommitAttempts {
            guard !fixes.isEmpty else { return }
            do {
                switch try await ingest(
                    tenant: tenant, device: device, fixes: fixes, fieldPrefix: fixes.count == 1 ? "body" : "", now: now)
                {
                case .committed: outcome.accepted += fixes.count
                case .duplicate: outcome.setAside[.duplicate, default: 0] += fixes.count
                }
                return
            } catch let problem as Problem where problem.status == .conflict {
                // Older than the device's last accepted fix, or holding it again (the batch itself
                // is in order).
                guard let last = try await hub.runtime(tenant).state(device: device, regions: nil)?.lastFix else {
                    throw problem
                }
                let split = RetriedFixes(fixes, after: last)
                for (reason, count) in [(SetAsideReason.older, split.older), (.duplicate, split.duplicate)]
                where count > 0 {
                    outcome.setAside[reason, default: 0] += count
                }
                fixes = split.new
            }
        }
        throw Problem(
            status: .serviceUnavailable,
            detail: "reports of device \"\(device.prefix(64))\" arrived concurrently out of order; retry")
    }

    /// How many times an app report's commit is tried against a moving "last accepted" fix.
    static let appCommitAttempts = 4
}
