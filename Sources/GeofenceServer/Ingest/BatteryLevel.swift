import Foundation

/// The battery level a tracking app reports beside its fixes (OwnTracks `batt`, Traccar
/// Client's and OsmAnd's `batt` or `battery`, Traccar Client's JSON `battery.level`), kept per
/// device for the dashboard (``ServerStore/recordBattery(tenant:device:percent:at:)``).
///
/// A level outside 0–100 % (the apps send −1 for "unknown") is acknowledged and not kept: a
/// battery reading never costs the fix it came with.
enum BatteryLevel {
    /// `value` in percent when it is a level, else `nil`.
    static func percent(_ value: Double?) -> Double? {
        guard let value, value.isFinite, (0...100).contains(value) else { return nil }
        return value
    }

    /// A fraction of 1 (Traccar Client's JSON) in percent, when it is a level.
    static func percent(fraction: Double?) -> Double? {
        guard let fraction, fraction.isFinite, (0...1).contains(fraction) else { return nil }
        return fraction * 100
    }

    /// The time a level is kept at: the report's own time, so that a delayed report never
    /// replaces a newer one, but never after `now` (a phone clock running ahead would pin its
    /// level against every later report) nor before 1970; `now` when the report has none.
    static func time(reported: Date?, now: Date) -> Double {
        guard let t = reported?.timeIntervalSince1970, t.isFinite else { return now.timeIntervalSince1970 }
        return min(max(t, 0), now.timeIntervalSince1970)
    }
}
