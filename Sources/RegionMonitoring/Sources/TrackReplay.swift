import Foundation
import Geofencing

/// Replays recorded fixes as an `AsyncSequence` of ``LocationUpdate``s, paced by an injected
/// clock: at real time, faster (10×, 100×), or as fast as possible.
///
/// ```swift
/// let clock = ManualClock(advancesOnSleep: true)
/// let replay = TrackReplay(fixes, clock: clock, speed: .scaled(100), tickInterval: 1)
/// try await device.run(replay)            // or: for try await update in replay { … }
/// ```
///
/// Fix *i* is released when the clock has moved `(tᵢ − t₀) / factor` past the first
/// `next()`. Between fixes, ticks are emitted every `tickInterval` seconds of track time so
/// the device can confirm transitions by time alone. Fixes must be in time order (the
/// engine rejects older ones). Cost: O(1) per update; nothing is buffered beyond the array.
public struct TrackReplay<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration, C: Sendable {
    public typealias Element = LocationUpdate

    /// How fast track time runs against the clock.
    public enum Speed: Sendable, Hashable {
        case realTime
        /// `factor` seconds of track per second of clock; a factor that is not a positive
        /// finite number plays as fast as possible.
        case scaled(Double)
        /// No waiting at all.
        case asFastAsPossible

        var factor: Double? {
            switch self {
            case .realTime: 1
            case .scaled(let f): f > 0 && f.isFinite ? f : nil
            case .asFastAsPossible: nil
            }
        }
    }

    public let fixes: [LocationFix]
    public let clock: C
    public let speed: Speed
    /// Seconds of track time between ticks; `nil` for no ticks.
    public let tickInterval: TimeInterval?

    /// Seconds of track time to keep ticking after the last fix (so a transition pending at
    /// the end of the track is still confirmed).
    public let trailingDuration: TimeInterval

    public init(
        _ fixes: [LocationFix], clock: C, speed: Speed = .realTime, tickInterval: TimeInterval? = 1,
        trailingDuration: TimeInterval = 0
    ) {
        self.fixes = fixes
        self.trailingDuration = Swift.max(0, trailingDuration.isFinite ? trailingDuration : 0)
        self.clock = clock
        self.speed = speed
        self.tickInterval = tickInterval.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(replay: self)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let replay: TrackReplay
        var index = 0
        var start: C.Instant?
        var nextTick: Date?

        public mutating func next() async throws -> LocationUpdate? {
            guard let first = replay.fixes.first else { return nil }
            let t0 = first.timestamp
            if start == nil { start = replay.clock.now }
            var update: LocationUpdate
            if index < replay.fixes.count {
                let fix = replay.fixes[index]
                update = .fix(fix)
                if let tick = nextTick, tick < fix.timestamp { update = .tick(tick) }
            } else {
                let end = replay.fixes[replay.fixes.count - 1].timestamp.addingTimeInterval(replay.trailingDuration)
                guard let tick = nextTick, tick <= end else { return nil }
                update = .tick(tick)
            }
            if let factor = replay.speed.factor, let start {
                let seconds = update.date.timeIntervalSince(t0) / factor
                try await replay.clock.sleep(until: start.advanced(by: .seconds(seconds)), tolerance: nil)
            }
            switch update {
            case .tick(let d):
                nextTick = d.addingTimeInterval(replay.tickInterval ?? .infinity)
            case .fix(let f):
                index += 1
                if let dt = replay.tickInterval { nextTick = f.timestamp.addingTimeInterval(dt) }
            }
            return update
        }
    }
}
