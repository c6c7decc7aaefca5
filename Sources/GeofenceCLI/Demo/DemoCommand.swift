import ArgumentParser
import Foundation

/// `geofence demo`: the bundled scenarios, end to end.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the bundled scenarios and print what a phone would have shown.",
        discussion: """
        Three scenarios, bundled with the tool: a tall truck driving toward a low railway \
        bridge (a warning a mile before it and at the bridge), a walk past shops with \
        push-style messages, and the classic Shanghai region-monitoring demo. Each run \
        prints the notifications and writes an SVG map to the output directory.

        Examples:
          geofence demo
          geofence demo --vehicle-height 3.5 --output /tmp/maps
          geofence demo --scenario low-bridge
        """
    )

    @Option(help: ArgumentHelp("Directory for the SVG maps.", valueName: "dir"))
    var output = "geofence-demo"

    @Option(name: .customLong("vehicle-height"), help: ArgumentHelp("Vehicle height in metres; only bridges lower than this are monitored.", valueName: "metres"))
    var vehicleHeight = Demo.defaultVehicleHeight

    @Option(help: ArgumentHelp("Run only this scenario (low-bridge, shop-nearby, shanghai); repeatable.", valueName: "name"))
    var scenario: [String] = []

    func validate() throws {
        guard vehicleHeight.isFinite, vehicleHeight > 0, vehicleHeight < 20 else {
            throw ValidationError("--vehicle-height must be a height in metres between 0 and 20 (got \(vehicleHeight))")
        }
        let known = Set(DemoScenario.all.map(\.id))
        for s in scenario where !known.contains(s) {
            throw ValidationError("unknown scenario \"\(s)\"; choose from \(DemoScenario.all.map(\.id).joined(separator: ", "))")
        }
    }

    func run() throws {
        let chosen = scenario.isEmpty ? DemoScenario.all : DemoScenario.all.filter { scenario.contains($0.id) }
        let report = try Demo(outputDirectory: output, vehicleHeight: vehicleHeight, scenarios: chosen).run()
        var out = FileDescriptorOutput.standardOutput
        out.write(report.text)
        out.flush()
    }
}
