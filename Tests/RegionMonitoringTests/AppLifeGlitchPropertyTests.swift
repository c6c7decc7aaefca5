import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

/// One random walk over app states, power cycles, authorisation (always ↔ when in use),
/// re-registrations, glitch fixes and 40 s stays inside or outside a 500 m circle (iOS).
///
/// The model (docs/monitoring.md rules 15, 31, 33, 35, 36): the region is *watched* while the
/// device is unlocked and the app may receive its events now — always authorised, or when in
/// use and the app in the foreground. A stay (9 fixes over 40 s, longer than the 20 s
/// confirmation) seen while watched makes the region's state the stay's side; it reaches the
/// app when it differs from the last state the app was told (after a re-registration: the
/// state it assumed; a location-manager region's first determination is silent). A glitch —
/// one fix on the other side, never two in a row — changes nothing, also right after a
/// registration or a resume. Everything else is silent.
struct AppLifeWalk {
    enum Step {
        case foreground, background, suspended, terminated, reboot, unlock
        case authorization(AuthorizationStatus)
        case reRegister(assuming: MonitorState)
        case stay(inside: Bool)
        case glitch
    }

    var steps: [Step] = []

    /// A fixed start (outside, inside, outside: at least one crossing in every walk), then
    /// `count` random steps.
    init(seed: UInt64, count: Int) {
        steps = [.stay(inside: false), .stay(inside: true), .stay(inside: false)]
        var rng = SplitMix64(seed: seed)
        var lastWasGlitch = false
        for _ in 0..<count {
            var step: Step =
                switch Int.random(in: 0..<14, using: &rng) {
                case 0: .foreground
                case 1: .background
                case 2: .suspended
                case 3: .terminated
                case 4: .reboot
                case 5: .unlock
                case 6: .authorization(Bool.random(using: &rng) ? .authorizedAlways : .authorizedWhenInUse)
                case 7: .reRegister(assuming: Bool.random(using: &rng) ? .satisfied : .unsatisfied)
                case 8, 9: .glitch
                default: .stay(inside: Bool.random(using: &rng))
                }
            if case .glitch = step, lastWasGlitch { step = .stay(inside: Bool.random(using: &rng)) }
            if case .glitch = step { lastWasGlitch = true } else { lastWasGlitch = false }
            steps.append(step)
        }
    }
}

/// The device side of a walk: the place of the last stay and the time of the next fix.
struct WalkTrack {
    var inside = false
    var time = 0.0

    mutating func stay(inside: Bool) -> [LocationFix] {
        self.inside = inside
        defer { time += 45 }
        return stride(from: time, through: time + 40, by: 5).map { fix($0, inside ? paris : offset(1_000)) }
    }

    mutating func glitch() -> [LocationFix] {
        defer { time += 5 }
        return [fix(time, inside ? offset(1_000) : paris)]
    }
}

/// What the app should hear: the model of ``AppLifeWalk``.
extension WalkModel {
    /// Applies a step of the app's life (its state, a reboot, an unlock, an authorisation) to
    /// `device` and to the model. Returns whether the app stopped running; other steps are
    /// the walk's own and change nothing here.
    mutating func live(_ step: AppLifeWalk.Step, on device: SimulatedDevice) async -> Bool {
        switch step {
        case .foreground, .background, .suspended, .terminated:
            let state: AppState =
                switch step {
                case .foreground: .foreground
                case .background: .background
                case .suspended: .suspended
                default: .terminated
                }
            await device.setAppState(state)
            appState = state
            return state == .terminated
        case .reboot:
            await device.reboot()
            locked = true
            appState = .terminated
            return true
        case .unlock:
            await device.unlock()
            locked = false
        case .authorization(let status):
            await device.update { $0.authorization = status }
            always = status == .authorizedAlways
        case .reRegister, .stay, .glitch:
            break
        }
        return false
    }
}

struct WalkModel {
    var locked = false
    var always = true
    var appState = AppState.foreground
    /// The last state the app was told (`nil`: nothing yet, the first determination is silent).
    var told: Bool?
    var expected: [Bool] = []

    var watching: Bool { !locked && (always || appState == .foreground) }

    mutating func stay(inside: Bool) {
        guard watching else { return }
        if told == nil {
            told = inside
            return
        }
        if told != inside {
            expected.append(inside)
            told = inside
        }
    }
}

@Suite("App life: random sequences with glitches and when-in-use authorisation")
struct AppLifeGlitchPropertyTests {
    static let seeds: [UInt64] = [1, 2, 3, 7, 42, 99, 2026, 31337]

    @Test("Monitor: every crossing outside the documented silences is delivered exactly once", arguments: seeds)
    func monitorWalk(seed: UInt64) async throws {
        let walk = AppLifeWalk(seed: seed, count: 120)
        let device = makeDevice()
        let circle = MonitorCondition.circular(center: paris, radius: 500)
        var instances: [Monitor] = []
        var current: Monitor? = try await Monitor("m", device: device)
        instances.append(current!)
        await current!.add(circle, identifier: "shop", assuming: .unsatisfied)
        var model = WalkModel(told: false)
        var track = WalkTrack()
        var glitches = 0
        for step in walk.steps {
            switch step {
            case .foreground, .background, .suspended, .terminated, .reboot, .unlock, .authorization:
                if await model.live(step, on: device) { current = nil }
            case .reRegister(let assumed):
                guard let monitor = current else { continue } // only a running app registers
                await monitor.add(circle, identifier: "shop", assuming: assumed)
                model.told = assumed == .satisfied
                try await device.feed(track.glitch()) // a glitch at registration
                glitches += 1
            case .glitch:
                try await device.feed(track.glitch())
                glitches += 1
            case .stay(let inside):
                try await device.feed(track.stay(inside: inside))
                model.stay(inside: inside)
            }
            let s = await device.settings.appState
            if current == nil, s == .foreground || s == .background {
                current = try await Monitor("m", device: device) // the app's launch code
                instances.append(current!)
            }
        }
        let delivered = try await finishAppLifeRun(device: device, current: current, instances: instances, seed: seed)
        #expect(delivered.map { $0.state == .satisfied } == model.expected, "seed \(seed)")
        #expect(delivered.allSatisfy { $0.state == .satisfied || $0.state == .unsatisfied }, "seed \(seed)")
        #expect(!model.expected.isEmpty && glitches > 0, "the walk exercised crossings and glitches")
    }

    @Test(
        "LocationManager: every crossing outside the documented silences reaches a delegate exactly once",
        arguments: seeds)
    func managerWalk(seed: UInt64) async throws {
        let walk = AppLifeWalk(seed: seed, count: 120)
        let device = makeDevice()
        var recorders: [Recorder] = []
        var managers: [LocationManager] = []
        func launch() async {
            let (m, r) = await manager(on: device) // the app's launch code
            managers.append(m)
            recorders.append(r)
        }
        await launch()
        await managers[0].startMonitoring(for: region("shop"))
        var running = true
        var model = WalkModel()
        var track = WalkTrack()
        for step in walk.steps {
            switch step {
            case .foreground, .background, .suspended, .terminated, .reboot, .unlock, .authorization:
                if await model.live(step, on: device) { running = false }
            case .reRegister:
                guard running, let manager = managers.last else { continue }
                await manager.startMonitoring(for: region("shop")) // replaces: starts afresh
                model.told = nil
                try await device.feed(track.glitch())
            case .glitch:
                try await device.feed(track.glitch())
            case .stay(let inside):
                try await device.feed(track.stay(inside: inside))
                model.stay(inside: inside)
            }
            let s = await device.settings.appState
            if !running, s == .foreground || s == .background {
                await launch()
                running = true
            }
        }
        await device.unlock()
        await device.setAppState(.foreground)
        if !running { await launch() }
        var delivered: [Bool] = []
        for r in recorders {
            for call in r.calls {
                if case .enter = call { delivered.append(true) }
                if case .exit = call { delivered.append(false) }
            }
        }
        #expect(delivered == model.expected, "seed \(seed)")
        #expect(!model.expected.isEmpty)
        withExtendedLifetime(managers) {}
    }
}
