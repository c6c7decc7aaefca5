import Foundation
import Geodesy
import Geofencing

/// Runs the bundled demo scenarios end to end: the library behind `geofence demo`.
///
/// ```swift
/// let report = try Demo(outputDirectory: "geofence-demo").run()
/// print(report.text)          // the story, with what a phone would have shown
/// ```
///
/// For each scenario it loads the bundled regions and track, runs them through the engine,
/// words each event as a phone notification, and writes an SVG map
/// (`<outputDirectory>/<scenario>.svg`).
public struct Demo {
    /// US trucks are commonly 13′6″ (4.11 m) tall.
    public static let defaultVehicleHeight = 4.11

    public var outputDirectory: String
    /// Only bridges with a clearance below this (metres) are monitored.
    public var vehicleHeight: Double
    /// Overrides every scenario's local time zone (tests use UTC).
    public var timeZone: TimeZone?
    /// Which scenarios to run (default: all).
    public var scenarios: [DemoScenario]

    public init(
        outputDirectory: String, vehicleHeight: Double = Demo.defaultVehicleHeight,
        timeZone: TimeZone? = nil, scenarios: [DemoScenario] = DemoScenario.all
    ) {
        self.outputDirectory = outputDirectory
        self.vehicleHeight = vehicleHeight
        self.timeZone = timeZone
        self.scenarios = scenarios
    }

    /// What one scenario produced.
    public struct ScenarioResult {
        public var scenario: String
        public var events: [ReportedEvent]
        /// (clock time, text) of each notification a phone would have shown.
        public var notifications: [(time: String, text: String)]
        public var mapPath: String
        public var summary: SimulationSummary
    }

    /// The whole run.
    public struct Report {
        public var results: [ScenarioResult]
        /// The printed story.
        public var text: String
    }

    /// Runs every scenario.
    /// - Throws: ``InputError`` if a bundled file is missing or the map cannot be written.
    public func run() throws -> Report {
        try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        var results: [ScenarioResult] = []
        var text = ""
        for scenario in scenarios {
            let r = try run(scenario, into: &text)
            results.append(r)
        }
        text += "\nMaps: " + results.map(\.mapPath).joined(separator: ", ") + "\n"
        return Report(results: results, text: text)
    }

    private func run(_ scenario: DemoScenario, into text: inout String) throws -> ScenarioResult {
        let tz = timeZone ?? scenario.timeZone
        var regions = try InputFiles.loadRegions(path: DemoScenario.resourcePath(scenario.regionsResource, "geojson"))
        text += "\n▶ \(scenario.title)\n"
        if scenario.id == "low-bridge" {
            let bridges = regions.filter { $0.metadata["kind"] == "bridge" }
            let low = bridges.filter { Double($0.metadata["clearance_m"] ?? "") ?? .infinity < vehicleHeight }
            let lowIDs = Set(low.map(\.identifier))
            regions = regions.filter { r in
                guard let kind = r.metadata["kind"], kind.hasPrefix("bridge") else { return true }
                return lowIDs.contains(r.metadata["bridge"] ?? r.identifier)
            }
            let names = low.map { "\($0.metadata["name"] ?? $0.identifier) (\($0.metadata["clearance_label"] ?? "?"))" }
            text += "  vehicle height \(String(format: "%.2f", vehicleHeight)) m (\(Demo.feetInches(vehicleHeight))): "
            text += "\(low.count) of \(bridges.count) bridges too low"
            text += low.isEmpty ? "; nothing to warn about\n" : ": " + names.joined(separator: ", ") + "\n"
        }
        let trackPath = try DemoScenario.resourcePath(scenario.trackResource, scenario.trackExtension)
        let opened = try InputFiles.openTrack(path: trackPath)
        var simulation = try Simulation(regions: regions, policy: scenario.policy)
        simulation.map = MapRecorder()
        var events: [ReportedEvent] = []
        let summary = try simulation.run(tracks: [
            TrackInput(
                subject: scenario.subject, name: (trackPath as NSString).lastPathComponent,
                source: opened.source)
        ]) { events.append($0) }
        let byID = Dictionary(regions.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        text +=
            "  \(summary.fixesRead) fixes from \(scenario.subject), \(regions.count) region\(regions.count == 1 ? "" : "s"), "
        text += "profile \(scenario.policy == .coreLocation ? "coreLocation" : "precise")\n"
        var notifications: [(String, String)] = []
        for r in events {
            let time = TimestampFormat.clockTime(r.event.time, in: tz)
            if let message = PhoneNotification.text(for: r.event, region: byID[r.event.regionID], regions: byID) {
                notifications.append((time, message))
                text += "  \(time)  🔔 \(message)\n"
            } else {
                text += "  \(time)     · \(r.event.kind.rawValue) \(r.event.regionID) (no notification)\n"
            }
        }
        if events.isEmpty { text += "  (no events)\n" }
        let mapPath = (outputDirectory as NSString).appendingPathComponent("\(scenario.id).svg")
        var svg = SVGMap(
            title: scenario.title,
            subtitle:
                "\(scenario.subject) · \(summary.fixesRead) fixes · \(events.count) events · profile \(scenario.policy == .coreLocation ? "coreLocation" : "precise")",
            regions: regions, tracks: simulation.map?.tracks ?? [], events: events)
        svg.timeZone = tz
        for r in regions {
            if let label = r.metadata["clearance_label"] {
                svg.regionNotes[r.identifier] = label
            } else if let name = r.metadata["name"] {
                svg.regionNotes[r.identifier] = name
            }
        }
        do {
            try svg.render().write(toFile: mapPath, atomically: true, encoding: .utf8)
        } catch {
            throw InputError.cannotOpen(
                path: mapPath, reason: "cannot write the map (\((error as NSError).localizedDescription))")
        }
        text += "  map: \(mapPath)\n"
        return ScenarioResult(
            scenario: scenario.id, events: events, notifications: notifications,
            mapPath: mapPath, summary: summary)
    }

    /// 4.11 → "13′6″".
    static func feetInches(_ metres: Double) -> String {
        let inches = Int((metres / 0.0254).rounded())
        return "\(inches / 12)′\(inches % 12)″"
    }
}
