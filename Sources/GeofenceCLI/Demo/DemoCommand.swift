import ArgumentParser
import Foundation

/// `geofence demo`: the bundled scenarios, end to end.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the bundled scenarios and print what a phone would have shown.",
        discussion: """
            Four scenarios, bundled with the tool: a tall truck driving toward a low railway \
            bridge (a warning a mile before it and at the bridge), a walk past shops with \
            push-style messages, the classic Shanghai region-monitoring demo, and the shop walk \
            again on a simulated iPhone whose app is killed by the system and relaunched in the \
            background by the next shop's entry (killed-app: it prints the launch reason). The \
            first three write an SVG map to the output directory.

            Examples:
              geofence demo
              geofence demo --vehicle-height 3.5 --output /tmp/maps
              geofence demo --scenario low-bridge
              geofence demo --scenario killed-app
            """
    )

    @Option(help: ArgumentHelp("Directory for the SVG maps.", valueName: "dir"))
    var output = "geofence-demo"

    @Option(
        name: .customLong("vehicle-height"),
        help: ArgumentHelp("Vehicle height in metres; only bridges lower than this are monitored.", valueName: "metres")
    )
    var vehicleHeight = Demo.defaultVehicleHeight

    @Option(
        help: ArgumentHelp(
            "Run only this scenario (low-bridge, shop-nearby, shanghai, killed-app); repeatable.", valueName: "name"))
    var scenario: [String] = []

    func validate() throws {
        guard vehicleHeight.isFinite, vehicleHeight > 0, vehicleHeight < 20 else {
            throw ValidationError("--vehicle-height must be a height in metres between 0 and 20 (got \(vehicleHeight))")
        }
        let known = DemoScenario.all.map(\.id) + [KilledAppScenario.id]
        for s in scenario where !known.contains(s) {
            throw ValidationError("unknown scenario \"\(s)\"; choose from \(known.joined(separator: ", "))")
        }
    }

    func run() async throws {
        let chosen = scenario.isEmpty ? DemoScenario.all : DemoScenario.all.filter { scenario.contains($0.id) }
        var out = FileDescriptorOutput.standardOutput
        if !chosen.isEmpty {
            let report = try Demo(outputDirectory: output, vehicleHeight: vehicleHeight, scenarios: chosen).run()
            out.write(report.text)
        }
        if scenario.isEmpty || scenario.contains(KilledAppScenario.id) {
            out.write(try await KilledAppScenario().run().text)
        }
        out.flush()
    }
}
