import Foundation
import Geofencing
import RegionMonitoring
import Testing

@testable import GeofenceCLI

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
