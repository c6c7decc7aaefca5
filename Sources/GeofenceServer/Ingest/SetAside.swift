import Foundation

/// Why a tracking app's report was acknowledged but not used (docs/server.md, "Answer policy").
///
/// The apps retry a refused upload for days or forever, holding back every report queued
/// behind it; a report the server understands but will not use is therefore answered as
/// delivered, and counted here instead of refused.
enum SetAsideReason: String, CaseIterable, Sendable {
    /// A report without a position (Traccar Client 10's heartbeat: `id`, `timestamp`, `batt`).
    case noPosition = "no_position"
    /// The app itself marked the fix invalid (`valid=false`).
    case distrusted
    /// The fix's time is outside the accepted window (a phone clock ahead of the server's by
    /// more than `maxFixClockSkewSeconds`, or a time before 2000).
    case clock
    /// Older than the device's last accepted fix, or than a fix before it in its batch: a
    /// late retry, or a queue sent out of order.
    case older
    /// A retry of the device's last accepted batch (its answer was lost).
    case duplicate
}

/// Per device, the reports set aside and the last reason: what `GET /v1/devices/{id}/state`
/// shows under `setAside`, so that an operator sees a phone whose clock is wrong.
///
/// In memory only (a restart starts the counts again; the metric
/// `geofence_app_reports_set_aside_total` is the durable view through Prometheus), and
/// bounded: at most ``capacity`` devices are tracked; past that, new devices are counted in
/// the metric only, so hostile device ids cannot grow the server's memory.
actor SetAsideLedger {
    /// What one device had set aside.
    struct Entry: Sendable, Equatable {
        var counts: [SetAsideReason: Int] = [:]
        var lastReason: SetAsideReason
        var lastAt: Date
    }

    private struct Key: Hashable {
        var tenant: String
        var device: String
    }

    /// Most devices tracked (about 200 bytes each, so 20 MB at most).
    let capacity: Int
    private var entries: [Key: Entry] = [:]

    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// Counts `count` reports of `device` set aside for `reason` at `now`.
    func record(tenant: String, device: String, reason: SetAsideReason, count: Int = 1, now: Date) {
        let key = Key(tenant: tenant, device: device)
        guard count > 0, entries[key] != nil || entries.count < capacity else { return }
        var entry = entries[key] ?? Entry(lastReason: reason, lastAt: now)
        entry.counts[reason, default: 0] += count
        entry.lastReason = reason
        entry.lastAt = now
        entries[key] = entry
    }

    /// What `device` had set aside, or `nil` for nothing (or a device past ``capacity``).
    func entry(tenant: String, device: String) -> Entry? { entries[Key(tenant: tenant, device: device)] }
}

extension SetAsideLedger.Entry {
    /// `{"no_position": 3, "clock": 1, …, "last": {"reason": "clock", "at": "…"}}` (only the
    /// reasons seen).
    var json: ServerJSON {
        var o: [String: ServerJSON] = [:]
        for (reason, n) in counts { o[reason.rawValue] = .number(Double(n)) }
        o["last"] = .object([
            "reason": .string(lastReason.rawValue), "at": .string(FixJSON.formatRFC3339(lastAt)),
        ])
        return .object(o)
    }
}
