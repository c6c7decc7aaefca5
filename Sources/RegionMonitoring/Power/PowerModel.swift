import Foundation

/// A configurable energy-cost model of a phone doing location work, to compare strategies
/// (continuous reporting, region monitoring) on the same track. docs/power.md gives the
/// source or the stated assumption behind every default.
///
/// ```swift
/// var model = PowerModel()                       // published or stated defaults
/// model.radioTailSeconds = 5                     // an operator with a shorter timer
/// let costs = model.unitCosts(spacing: 10)       // events 10 s apart: tails overlap
/// let e = model.estimate(usage, spacing: 10)     // joules, mAh at batteryVolts, per hour
/// ```
///
/// The model is linear: energy = Σ count × unit cost + baseline power × duration. A unit cost
/// is a power times an on-time; when the same kind of work repeats faster than its on-time
/// (a GPS receiver kept on between 1 s fixes, a radio that never leaves its high-power tail),
/// the on-time is the spacing instead (``unitCosts(spacing:)``). Idle power of the phone is
/// not counted: every figure is *extra* energy over an idle phone.
///
/// What it deliberately leaves out: the screen, signal strength (weak signal raises both GPS
/// and radio cost), payload size beyond a small report, and the operating system's own
/// batching of work.
public struct PowerModel: Sendable, Hashable, Codable {
    /// GPS receiver power while acquiring / tracking (watts).
    public var gpsWatts: Double = 0.155
    /// How long the receiver stays on for one fix after sleeping (seconds).
    public var gpsOnSecondsPerFix: Double = 10
    /// Energy of one Wi-Fi / cell position (a scan and a look-up), joules.
    public var networkFixJoules: Double = 1.0
    /// How often the system takes a Wi-Fi / cell position for region monitoring (seconds).
    public var regionMonitoringFixInterval: Double = 120
    /// Extra power of the application processor while an app runs in the background (watts).
    public var appAwakeWatts: Double = 0.2
    /// How long one wake-up keeps the app running (seconds; Apple: "around 10 seconds").
    public var wakeSeconds: Double = 10
    /// Energy to send one small report over the cellular radio, excluding the tail (joules).
    public var uploadTransferJoules: Double = 0.1
    /// Extra radio power while connected after a transfer (the "tail"), watts above idle.
    public var radioTailWatts: Double = 0.77
    /// How long the radio stays in its high-power state after a transfer (seconds).
    public var radioTailSeconds: Double = 10
    /// Constant extra power of having region monitoring on, beyond the positions above (watts).
    public var monitoringBaselineWatts: Double = 0
    /// Battery voltage used to express energy as charge (volts).
    public var batteryVolts: Double = 3.85

    public init() {}

    /// The cost of one unit of each kind of work when units of that kind come `spacing`
    /// seconds apart (`nil`: isolated, each pays its full on-time).
    public func unitCosts(spacing: TimeInterval? = nil) -> UnitCosts {
        func onTime(_ full: Double) -> Double {
            guard let s = spacing, s.isFinite, s > 0 else { return full }
            return min(full, s)
        }
        return UnitCosts(
            gpsFixJoules: gpsWatts * onTime(gpsOnSecondsPerFix),
            networkFixJoules: networkFixJoules,
            wakeUpJoules: appAwakeWatts * onTime(wakeSeconds),
            uploadJoules: uploadTransferJoules + radioTailWatts * onTime(radioTailSeconds),
            baselineWatts: monitoringBaselineWatts)
    }

    /// The energy of `usage`, its counts priced by ``unitCosts(spacing:)``.
    public func estimate(_ usage: PowerUsage, spacing: TimeInterval? = nil) -> PowerEstimate {
        let c = unitCosts(spacing: spacing)
        let joules =
            Double(usage.gpsFixes) * c.gpsFixJoules
            + Double(usage.networkFixes) * c.networkFixJoules
            + Double(usage.wakeUps) * c.wakeUpJoules
            + Double(usage.uploads) * c.uploadJoules
            + c.baselineWatts * usage.durationSeconds
            + usage.continuousSeconds * (gpsWatts + appAwakeWatts)
        return PowerEstimate(joules: joules, durationSeconds: usage.durationSeconds, batteryVolts: batteryVolts)
    }
}

/// The price of one unit of each kind of work (see ``PowerModel/unitCosts(spacing:)``).
public struct UnitCosts: Sendable, Hashable, Codable {
    /// One GPS fix (joules).
    public var gpsFixJoules: Double
    /// One Wi-Fi / cell position (joules).
    public var networkFixJoules: Double
    /// One background wake-up, launch or delivery of the app (joules).
    public var wakeUpJoules: Double
    /// One report to a server, radio tail included (joules).
    public var uploadJoules: Double
    /// Constant power of having monitoring on (watts).
    public var baselineWatts: Double
}

/// What a strategy made the phone do over a scenario.
public struct PowerUsage: Sendable, Hashable, Codable {
    /// GPS fixes taken.
    public var gpsFixes = 0
    /// Wi-Fi / cell positions taken.
    public var networkFixes = 0
    /// Times the app was woken, launched or handed a location in the background.
    public var wakeUps = 0
    /// Reports sent to a server (and catalogue downloads).
    public var uploads = 0
    /// Length of the scenario (seconds).
    public var durationSeconds: Double = 0
    /// Seconds with the GPS on continuously and the app awake (the planner's hybrid mode),
    /// priced at `gpsWatts + appAwakeWatts`.
    public var continuousSeconds: Double = 0

    public init(
        gpsFixes: Int = 0, networkFixes: Int = 0, wakeUps: Int = 0, uploads: Int = 0,
        durationSeconds: Double = 0, continuousSeconds: Double = 0
    ) {
        self.gpsFixes = gpsFixes
        self.networkFixes = networkFixes
        self.wakeUps = wakeUps
        self.uploads = uploads
        self.durationSeconds = durationSeconds
        self.continuousSeconds = continuousSeconds
    }
}

/// An energy figure with its charge and hourly rate.
public struct PowerEstimate: Sendable, Hashable, Codable {
    /// Extra energy over the scenario (joules).
    public var joules: Double
    public var durationSeconds: Double
    public var batteryVolts: Double

    /// The same energy as battery charge: J / V = coulombs; / 3.6 = mAh.
    public var milliampHours: Double { joules / batteryVolts / 3.6 }
    /// Joules per hour of scenario.
    public var joulesPerHour: Double { durationSeconds > 0 ? joules * 3_600 / durationSeconds : 0 }
    /// mAh per hour of scenario (the average extra current in mA).
    public var milliampHoursPerHour: Double { durationSeconds > 0 ? milliampHours * 3_600 / durationSeconds : 0 }
}
