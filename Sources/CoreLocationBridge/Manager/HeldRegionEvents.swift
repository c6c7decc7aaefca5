import Foundation
import RegionMonitoring

/// The region callbacks a ``CoreLocationManagerBackend`` keeps for delegates set after they
/// arrived, so that no wiring order at launch loses the event the app was relaunched for.
///
/// iOS relaunches an app for a region event and delivers it as soon as the app's
/// `CLLocationManager` has a delegate (the bridge's, set in `AppleLocationManager.init`),
/// usually before the app has built whatever acts on it (a planner's adapter behind an
/// authorisation watcher, say). Every entry, exit, and the state that follows one, is kept
/// for ``CoreLocationManagerBackend/EventHold/seconds`` after it arrived, at most
/// ``CoreLocationManagerBackend/EventHold/count`` of them (the oldest go first); a delegate set
/// meanwhile gets, after its authorisation status, the kept callbacks it has not had, in order.
/// A delegate never gets a callback twice. O(kept × delegates) per delegate set.
struct HeldRegionEvents {
    private struct Entry {
        let callback: SystemCallback
        let arrived: Date
        var recipients: [Recipient]

        func reached(_ delegate: any LocationManagerDelegate) -> Bool {
            recipients.contains { $0.delegate === delegate }
        }
    }

    private struct Recipient {
        weak var delegate: (any LocationManagerDelegate)?
    }

    let hold: CoreLocationManagerBackend.EventHold
    private var entries: [Entry] = []
    /// Callbacks dropped because more than ``CoreLocationManagerBackend/EventHold/count`` were kept.
    private(set) var dropped = 0

    init(hold: CoreLocationManagerBackend.EventHold) { self.hold = hold }

    /// Keeps `callback`, which arrived at `date` and went to `delegates`.
    mutating func keep(_ callback: SystemCallback, at date: Date, deliveredTo delegates: [any LocationManagerDelegate])
    {
        forget(before: date)
        guard hold.count > 0 else { return }
        if entries.count >= hold.count {
            entries.removeFirst()
            dropped += 1
        }
        entries.append(Entry(callback: callback, arrived: date, recipients: delegates.map(Recipient.init)))
    }

    /// The kept callbacks `delegate` has not had, oldest first; from now on they count as its.
    mutating func unseen(by delegate: any LocationManagerDelegate, at date: Date) -> [SystemCallback] {
        forget(before: date)
        var out: [SystemCallback] = []
        for i in entries.indices where !entries[i].reached(delegate) {
            out.append(entries[i].callback)
            entries[i].recipients.append(Recipient(delegate: delegate))
        }
        return out
    }

    /// How many callbacks are kept.
    var count: Int { entries.count }

    private mutating func forget(before date: Date) {
        entries.removeAll { date.timeIntervalSince($0.arrived) > hold.seconds }
    }
}

extension CoreLocationManagerBackend {
    /// How long, and how many, region callbacks are kept for delegates set after they arrived
    /// (``HeldRegionEvents``).
    public struct EventHold: Sendable, Hashable {
        /// Seconds a region callback stays available to delegates set later.
        public var seconds: TimeInterval
        /// Most callbacks kept (the oldest are dropped first).
        public var count: Int

        /// Defaults: 60 s (a background relaunch has about 10 s; a user's cold start wires its
        /// stack in a few) and 100 callbacks (an entry or exit and its state for each of the
        /// 20 regions, twice over).
        public init(seconds: TimeInterval = 60, count: Int = 100) {
            self.seconds = seconds
            self.count = count
        }
    }
}
