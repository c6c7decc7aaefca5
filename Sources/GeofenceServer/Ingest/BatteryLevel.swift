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
}
