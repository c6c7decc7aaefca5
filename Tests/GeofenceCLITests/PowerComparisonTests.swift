import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI
@testable import RegionMonitoring

@Suite("simulate --power")
struct PowerComparisonTests {
    @Test("--power needs no regions or tracks; plain simulate still does")
    func parsing() throws {
        let command = try #require(try GeofenceCommand.parseAsRoot(["simulate", "--power"]) as? SimulateCommand)
        #expect(command.power)
        #expect(throws: (any Error).self) { _ = try GeofenceCommand.parseAsRoot(["simulate", "--track", "t.csv"]) }
        #expect(throws: (any Error).self) {
            _ = try GeofenceCommand.parseAsRoot(["simulate", "--regions", "r.geojson"])
        }
    }

    @Test(
        "--power on your own catalogue takes one --track with its --regions; --maximum-speed and --upload-window are checked"
    )
    func ownCatalogueParsing() throws {
        let own = try #require(
            try GeofenceCommand.parseAsRoot([
                "simulate", "--power", "--regions", "r.geojson", "--track", "t.csv", "--maximum-speed", "30",
                "--upload-window", "10",
            ]) as? SimulateCommand)
        #expect(own.maximumSpeed == 30 && own.uploadWindow == 10)
        let refused: [[String]] = [
            ["simulate", "--power", "--track", "t.csv"],
            ["simulate", "--power", "--regions", "r.geojson", "--track", "a.csv", "--track", "b.csv"],
            ["simulate", "--power", "--maximum-speed", "0"],
            ["simulate", "--power", "--maximum-speed", "nan"],
            ["simulate", "--power", "--upload-window", "-10"],
            ["simulate", "--power", "--upload-window", "inf"],
            ["simulate", "--regions", "r.geojson", "--track", "t.csv", "--upload-window", "10"],
        ]
        for arguments in refused {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try GeofenceCommand.parseAsRoot(arguments) }
        }
    }

    @Test("a catalogue and track of your own: its top speed from the fixes, one upload per window with events")
    func ownCatalogue() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("power-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A walk at 1.5 m/s east along 47° N, one fix every 2 s, through 14 shops 250 m apart.
        let metresPerDegree = 111_320 * cos(47 * Double.pi / 180)
        var track = "time,latitude,longitude,accuracy\n"
        for k in 0..<1_200 {
            let lon = 8 + Double(k) * 3 / metresPerDegree
            track += "2026-01-01T10:\(String(format: "%02d:%02d", k * 2 / 60, k * 2 % 60))Z,47.0000000,\(lon),8\n"
        }
        var features: [String] = []
        for k in 0..<14 {
            let lon = 8 + Double(150 + 250 * k) / metresPerDegree
            features.append(
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":["# + "\(lon)"
                    + #",47]},"properties":{"id":"shop-"# + "\(k)" + #"","radius":100}}"#)
        }
        let regions = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        try track.write(to: dir.appendingPathComponent("walk.csv"), atomically: true, encoding: .utf8)
        try regions.write(to: dir.appendingPathComponent("shops.geojson"), atomically: true, encoding: .utf8)
        let scenario = try PowerComparison.scenario(
            regionsPath: dir.appendingPathComponent("shops.geojson").path,
            trackPath: dir.appendingPathComponent("walk.csv").path, maximumSpeed: nil)
        #expect(scenario.maximumSpeed == 2, "1.5 m/s rounded up")
        #expect(scenario.regions.count == 14 && scenario.fixes.count == 1_200)
        let each = try await PowerComparison(scenarios: [scenario]).run()
        let windowed = try await PowerComparison(scenarios: [scenario], uploadWindow: 600).run()
        #expect(windowed.text.contains("Region monitoring uploads the events of each 600 s window together."))
        for (a, b) in zip(each.results[0].reports, windowed.results[0].reports) {
            #expect(a.events == b.events, "\(a.strategy.name)")
            if case .continuousReporting = a.strategy {
                #expect(a.usage.uploads == b.usage.uploads, "continuous reporting uploads every fix it sends")
                continue
            }
            #expect(a.events > 4, "\(a.strategy.name): the walk passes the shops")
            #expect(a.usage.uploads == a.events + a.downloads)
            // 40 minutes: at most five 600 s windows (the walk need not start on one).
            #expect(b.usage.uploads <= 5 + b.downloads && b.usage.uploads < a.usage.uploads, "\(b.strategy.name)")
        }
    }

    @Test(
        "tiers group by latitude bands exactly as the rule reads: each region joins the earliest cluster within reach")
    func tiersMatchTheRule() {
        var rng = SplitMix64(seed: 7)
        var regions: [Region] = []
        // Dense spots, a sparse spread, the antimeridian and the far north.
        let spots: [(Double, Double)] = [
            (47, 8), (47.02, 8.03), (-33.9, 151.2), (0, 179.99), (0.01, -179.99), (78.2, 15.6),
        ]
        for k in 0..<1_500 {
            let (lat, lon) = spots[k % spots.count]
            let c = Coordinate(
                uncheckedLatitude: lat + rng.uniform(-0.05, 0.05),
                longitude: ((lon + rng.uniform(-0.08, 0.08) + 540).truncatingRemainder(dividingBy: 360)) - 180)
            regions.append(.circle(identifier: "r\(k)", center: c, radius: rng.uniform(20, 300)))
        }
        let (parents, children) = PowerStrategyRunner.tiers(of: regions, clusterMeters: 3_000, margin: 100)
        // The rule, every region against every earlier cluster.
        var seeds: [Coordinate] = []
        var expected: [[String]] = []
        for r in regions {
            let c = PowerStrategyRunner.center(of: r)
            if let i = seeds.firstIndex(where: { Geodesic.wgs84.inverse($0, c).distance <= 3_000 }) {
                expected[i].append(r.identifier)
            } else {
                seeds.append(c)
                expected.append([r.identifier])
            }
        }
        #expect(parents.count == expected.count)
        for (i, members) in expected.enumerated() {
            #expect(children["parent-\(i + 1)"]?.map(\.identifier) == members, "parent-\(i + 1)")
        }
        #expect(expected.count > 30, "the spread makes many clusters: \(expected.count)")
    }

    @Test(
        "the four strategies on the drive and the walk; every energy follows from counts × unit costs, hybrid time included"
    )
    func numbersFollowFromTheModel() async throws {
        let comparison = PowerComparison()
        let report = try await comparison.run()
        #expect(
            report.results.map(\.scenario) == [
                "drive (low-bridge.gpx)", "walk (shops.csv)",
                "drive (low-bridge.gpx) + 100 synthetic places",
                "walk (shops.csv) + 100 synthetic places",
            ])
        #expect(report.results.map(\.regionCount) == [6, 6, 106, 106])
        let model = comparison.model
        for r in report.results {
            #expect(r.reports.map(\.strategy) == comparison.strategies)
            for s in r.reports {
                let c = model.unitCosts(spacing: s.spacing)
                let u = s.usage
                let joules =
                    Double(u.gpsFixes) * c.gpsFixJoules + Double(u.networkFixes) * c.networkFixJoules
                    + Double(u.wakeUps) * c.wakeUpJoules + Double(u.uploads) * c.uploadJoules
                    + c.baselineWatts * u.durationSeconds + u.continuousSeconds * (model.gpsWatts + model.appAwakeWatts)
                #expect(abs(s.estimate.joules - joules) < 1e-6, "\(r.scenario) / \(s.strategy.name)")
                #expect(u.continuousSeconds == s.hybridSeconds)
                #expect(abs(s.estimate.milliampHours - joules / model.batteryVolts / 3.6) < 1e-9)
                #expect(u.durationSeconds == r.durationSeconds)
            }
            let continuous = r.reports[0]
            let nearest = r.reports[1]
            let hybrid = r.reports[2]
            let tiered = r.reports[3]
            #expect(continuous.usage.gpsFixes == Int(r.durationSeconds / 10) + 1, "one fix every 10 s of a 1 Hz track")
            #expect(continuous.spacing == 10 && nearest.spacing == nil && tiered.spacing == nil)
            #expect(
                nearest.usage.gpsFixes <= 2 * nearest.replans && nearest.usage.uploads == nearest.events,
                "the fix a re-plan asks for, and another when that one is set aside as a glitch")
            #expect(nearest.hybridSeconds == 0, "slots only")
            #expect(hybrid.events >= nearest.events)
            #expect(tiered.usage.uploads == tiered.events + tiered.downloads)
            #expect(nearest.estimate.joules < continuous.estimate.joules)
        }
        // The dense catalogues do not fit in 20 slots: the planner re-plans as the user moves.
        for r in report.results.suffix(2) { #expect(r.reports[1].replans > 1, "\(r.scenario)") }
        // The dense drive needs hybrid mode for a while: it costs more than slots only.
        let denseDrive = report.results[2]
        #expect(denseDrive.reports[2].hybridSeconds > 0)
        #expect(denseDrive.reports[2].estimate.joules > denseDrive.reports[1].estimate.joules)
    }

    @Test("the command's synchronous path (a thread waiting on a detached task) prints the same text")
    func blockingPath() async throws {
        let expected = try await PowerComparison().run().text
        let text: String = try await withCheckedThrowingContinuation { c in
            Thread { c.resume(with: Result { try PowerComparison.runBlocking(PowerComparison()).text }) }.start()
        }
        #expect(text == expected)
        #expect(text.hasPrefix("Power model (docs/power.md)"))
    }

    @Test("docs/power.md holds the table that --power prints")
    func docsReproduced() async throws {
        let report = try await PowerComparison().run()
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/power.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let rows = report.text.split(separator: "\n").filter {
            $0.hasPrefix("| ") || $0.hasPrefix("Power model") || $0.contains(" min, ")
        }
        #expect(rows.count == 1 + 4 * 6)
        for row in rows { #expect(text.contains(row), "docs/power.md is missing: \(row)") }
    }
}

@Suite("demo: killed app")
struct KilledAppDemoTests {
    @Test("the app is killed during the shop walk and relaunched by the next entry, which it receives once")
    func killedAndRelaunched() async throws {
        let result = try await KilledAppScenario(timeZone: utc).run()
        #expect(result.launches.map(\.reason) == [.location], "one relaunch, for a region event")
        #expect(result.launchReasonsSeen == [.location], "the launch handler saw the reason")
        #expect(result.text.contains("✖ the system kills the app"))
        #expect(result.text.contains("launch reason: location"))
        let first = try #require(result.notifications.first)
        #expect(first.how == "foreground")
        let relaunched = result.notifications.filter { $0.how == "relaunched" }
        #expect(relaunched.count == 1, "the event that caused the launch is delivered once, to the new delegate")
        let launch = try #require(result.launches.first)
        #expect(relaunched.first?.time == TimestampFormat.clockTime(launch.date, in: utc))
        #expect(
            relaunched.first.map { $0.text.contains(":") && !$0.text.hasPrefix("Thanks") } == true, "an entry message")
        // Every shop message appears once per visit: the relaunch neither loses nor repeats one.
        let texts = result.notifications.map(\.text)
        #expect(zip(texts, texts.dropFirst()).allSatisfy { $0 != $1 })
        #expect(result.notifications.count >= 3)
    }

    @Test("demo --scenario killed-app is accepted")
    func parsing() throws {
        #expect(throws: Never.self) { _ = try GeofenceCommand.parseAsRoot(["demo", "--scenario", "killed-app"]) }
        #expect(throws: (any Error).self) { _ = try GeofenceCommand.parseAsRoot(["demo", "--scenario", "nope"]) }
    }
}
