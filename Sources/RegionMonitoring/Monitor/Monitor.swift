import Foundation

/// Monitors conditions and reports their changes as an `AsyncSequence` of events
/// (Core Location's `CLMonitor`), on any ``MonitorBackend``: a ``SimulatedDevice`` in tests
/// and on Linux, Core Location's `CLMonitor` on a phone (`CoreLocationBridge`).
///
/// ```swift
/// let monitor = try await Monitor("shops", device: device)
/// await monitor.add(.circular(center: shop, radius: 150), identifier: "shop-1", assuming: .unsatisfied)
/// for await event in monitor.events {
///     if event.state == .satisfied { notify("Welcome to \(event.identifier)") }
/// }
/// ```
///
/// - **By name**: a monitor's conditions and last events persist under its name (in the
///   device's ``MonitorStore`` when it has one). ``close()`` is the app going away: the
///   stream ends but the device keeps monitoring; a new `Monitor` with the same name (the
///   relaunched app) first receives the events it missed, in order, exactly once. One open
///   instance per name at a time.
/// - **Initial state**: a condition starts in the `assuming` state (default `.unknown`); the
///   first determination counts once held like a crossing (one glitch decides nothing) and is
///   reported only if it differs.
/// - **Name**: letters, digits and underscores, not starting with an underscore (Apple's
///   rule), at most 128 UTF-8 bytes; anything else is refused when the monitor is created.
/// - **Buffering**: `events` buffers without limit (`AsyncStream`, `.unbounded`): a slow
///   consumer never loses an event; memory grows with the backlog. One consumer.
/// - **End**: `events` finishes when the monitor is closed or invalidated.
/// - Conditions the device cannot monitor are kept with state `.unmonitored` and an event
///   carrying `conditionUnsupported` or `conditionLimitExceeded`.
public actor Monitor {
    /// The monitor's name (its persistence key).
    public nonisolated let name: String
    /// The system service it runs on.
    public nonisolated let backend: any MonitorBackend
    /// Every event, in order; unbounded buffer; finishes on ``close()`` / ``invalidate()``.
    public nonisolated let events: AsyncStream<MonitorEvent>
    private let continuation: AsyncStream<MonitorEvent>.Continuation
    /// This instance's token on the device (a closed instance cannot touch a newer one).
    private let token: UInt64

    /// Opens (or creates) the monitor `name` on `device`.
    /// - Throws: ``MonitoringError/monitorAlreadyOpen(name:)``, ``MonitoringError/invalidName(_:)``,
    ///   ``MonitoringError/nameTooLong(name:utf8Count:limit:)``, or
    ///   ``MonitoringError/storeCorrupt(name:path:reason:)`` (the store is left untouched).
    public init(_ name: String, backend: any MonitorBackend) async throws(MonitoringError) {
        let (stream, continuation) = AsyncStream.makeStream(of: MonitorEvent.self, bufferingPolicy: .unbounded)
        self.name = name
        self.backend = backend
        self.events = stream
        self.continuation = continuation
        do {
            self.token = try await backend.openMonitor(name, continuation: continuation)
        } catch {
            continuation.finish()
            throw error
        }
    }

    /// Opens (or creates) the monitor `name` on the simulated `device`.
    public init(_ name: String, device: SimulatedDevice) async throws(MonitoringError) {
        try await self.init(name, backend: device)
    }

    /// The simulated device this monitor runs on, if that is its backend.
    public nonisolated var device: SimulatedDevice? { backend as? SimulatedDevice }

    /// Starts monitoring `condition` under `identifier` (an existing identifier is replaced
    /// and its state reset), assuming the initial `state`. At the per-app limit the condition
    /// is kept `.unmonitored` (`conditionLimitExceeded`) and holds no slot; adding it again
    /// is refused again until a slot is free. Does nothing once closed.
    public func add(_ condition: MonitorCondition, identifier: String, assuming state: MonitorState = .unknown) async {
        await backend.addCondition(condition, identifier: identifier, assuming: state, monitor: name, token: token)
    }

    /// Stops monitoring `identifier`: no more events for it (undelivered ones are dropped).
    /// Does nothing once closed.
    public func remove(_ identifier: String) async {
        await backend.removeCondition(identifier, monitor: name, token: token)
    }

    /// The monitored identifiers, in the order added.
    public var identifiers: [String] {
        get async { await backend.identifiers(of: name) }
    }

    /// The condition and last event for `identifier`, or `nil`.
    public func record(for identifier: String) async -> MonitorRecord? {
        await backend.record(identifier, of: name)
    }

    /// The app lets go of the monitor: `events` finishes; monitoring continues on the device
    /// and later events wait for the next `Monitor` with this name.
    public func close() async {
        await backend.closeMonitor(name, token: token)
    }

    /// Stops every condition for good and deletes the monitor's stored state; `events` finishes.
    /// Does nothing to the monitor if this instance was already closed (only the stream ends).
    public func invalidate() async {
        await backend.invalidateMonitor(name, token: token)
        continuation.finish()
    }
}
