import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

@Suite("App life: random sequences")
struct AppLifePropertyTests {
    /// Random app states, reboots, unlocks and 40 s stays inside or outside a 500 m circle
    /// (iOS). The model: a stay seen while the device is on changes the reported state when it
    /// differs from the last one reported; stays while locked after boot are silent. Every
    /// app instance's events, concatenated, must equal the model's: nothing lost, nothing twice.
    @Test(
        "every crossing outside the documented silences is delivered exactly once",
        arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomSequences(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let device = makeDevice()
        var instances: [Monitor] = []
        var current: Monitor? = try await Monitor("m", device: device)
        instances.append(current!)
        await current!.add(.circular(center: paris, radius: 500), identifier: "shop", assuming: .unsatisfied)
        var expected: [MonitorState] = []
        var lastReported = MonitorState.unsatisfied
        var locked = false
        var time = 0.0
        for _ in 0..<80 {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: await device.setAppState(.foreground)
            case 1: await device.setAppState(.background)
            case 2: await device.setAppState(.suspended)
            case 3:
                await device.setAppState(.terminated)
                current = nil
            case 4:
                await device.reboot()
                current = nil
                locked = true
            case 5:
                await device.unlock()
                locked = false
            default:
                let inside = Bool.random(using: &rng)
                let place = inside ? paris : offset(1_000)
                try await device.feed(stride(from: time, through: time + 40, by: 5).map { fix($0, place) })
                time += 45
                let state: MonitorState = inside ? .satisfied : .unsatisfied
                if !locked, state != lastReported {
                    expected.append(state)
                    lastReported = state
                }
            }
            let s = await device.settings.appState
            if current == nil, s == .foreground || s == .background {
                current = try await Monitor("m", device: device) // the app's launch code
                instances.append(current!)
            }
        }
        // Finally the user unlocks and opens the app, which collects anything still waiting.
        let delivered = try await finishAppLifeRun(device: device, current: current, instances: instances, seed: seed)
        #expect(delivered.map(\.state) == expected, "seed \(seed)")
        #expect(!expected.isEmpty, "the sequence exercised at least one crossing")
    }
}

@Suite("App life: random sequences, LocationManager delegates")
struct ManagerAppLifePropertyTests {
    /// The same random walk as above for the classic API: a manager region, its delegate
    /// recreated by the app's launch code whenever the process starts. Every delegate's calls,
    /// concatenated, must equal the model's: nothing lost, nothing twice.
    @Test(
        "every crossing outside the documented silences reaches a delegate exactly once",
        arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomSequences(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
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
        var expected: [String] = []
        var lastReported: RegionState = .outside
        // Decide "outside" first so the region's state is known (its first determination is silent).
        try await device.feed(stride(from: 0.0, through: 40, by: 5).map { fix($0, offset(1_000)) })
        var locked = false
        var time = 45.0
        for _ in 0..<80 {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: await device.setAppState(.foreground)
            case 1: await device.setAppState(.background)
            case 2: await device.setAppState(.suspended)
            case 3:
                await device.setAppState(.terminated)
                running = false
            case 4:
                await device.reboot()
                running = false
                locked = true
            case 5:
                await device.unlock()
                locked = false
            default:
                let inside = Bool.random(using: &rng)
                try await device.feed(
                    stride(from: time, through: time + 40, by: 5).map { fix($0, inside ? paris : offset(1_000)) })
                time += 45
                let state: RegionState = inside ? .inside : .outside
                if !locked, state != lastReported {
                    expected.append(inside ? "enter" : "exit")
                    lastReported = state
                }
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
        var delivered: [String] = []
        for r in recorders {
            for call in r.calls {
                if case .enter = call { delivered.append("enter") }
                if case .exit = call { delivered.append("exit") }
            }
        }
        #expect(delivered == expected, "seed \(seed)")
        #expect(!expected.isEmpty)
        withExtendedLifetime(managers) {}
    }
}
