import ArgumentParser
import Foundation
import Geofencing

/// `geofence simulate`: run track files against regions and print the events.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run tracks against regions and print the enter / exit / dwell events.",
        discussion: """
            Regions are a GeoJSON FeatureCollection: Point features with properties.id and \
            properties.radius (metres) are circles; Polygon and MultiPolygon features with \
            properties.id are polygons; optional notifyOnEntry, notifyOnExit, dwell (seconds).
            Tracks may be GPX, NMEA 0183, CSV (time,latitude,longitude[,accuracy,speed,course]) \
            or GeoJSON; the format is detected from the content. Each --track is one subject.

            Output (--format): jsonl (default when stdout is not a terminal) prints one object \
            per event in time order: {"event","region","subject","time","latitude","longitude",\
            "crossedAt"}; table (default on a terminal); geojson (events as Point features).
            A summary (fixes read, rejected with their line numbers, events, wall time) goes to \
            standard error.

            Examples:
              geofence simulate --regions bridges.geojson --track drive.gpx
              geofence simulate --regions shops.geojson --track a.csv --track b.nmea --format table
              geofence simulate --regions r.geojson --track t.csv --profile coreLocation --map run.svg
              geofence simulate --regions city.geojson --track fleet/*.csv --threads 2
              geofence simulate --power      # energy of four strategies on the bundled drive and walk
              geofence simulate --power --regions city.geojson --track drive.csv --upload-window 10
            """
    )

    @Option(help: ArgumentHelp("GeoJSON FeatureCollection of regions.", valueName: "file"))
    var regions: String?

    @Option(
        name: .customLong("track"),
        help: ArgumentHelp("A track file (GPX, NMEA, CSV or GeoJSON); repeat for several subjects.", valueName: "file"))
    var tracks: [String] = []

    @Option(help: "Hysteresis profile: coreLocation (Apple's ~200 m / 20 s) or precise (accuracy-aware).")
    var profile: Profile = .precise

    @Option(help: "Output format: jsonl, table or geojson (default: table on a terminal, jsonl otherwise).")
    var format: OutputFormat?

    @Option(
        help: ArgumentHelp("Also draw an SVG map of regions, tracks and events to this file.", valueName: "out.svg"))
    var map: String?

    @Option(name: .customLong("map-color"), help: "Colour the map's track by speed or time.")
    var mapColor: MapColoringOption = .speed

    @Option(
        name: .customLong("subject"),
        help: ArgumentHelp("Subject name for the tracks, in order (default: each file's name).", valueName: "name"))
    var subjects: [String] = []

    @Option(help: ArgumentHelp("Write the events to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Threads to use (default: one per core): several tracks are read and evaluated in parallel, a single track's events are written on a thread of their own; the output is the same for any number.",
            valueName: "n"))
    var threads: Int?

    @Flag(help: "Do not print the summary on standard error.")
    var quiet = false

    @Flag(
        help:
            "Print the energy comparison of continuous reporting, 20 nearest regions (slots only, and with hybrid mode where dense) and tiered regions (docs/power.md): on the bundled drive and walk, or on one --track through --regions."
    )
    var power = false

    @Option(
        name: .customLong("maximum-speed"),
        help: ArgumentHelp(
            "With --power on your own track: the top speed the planner sizes for (default: the 99th percentile of the track's speeds, rounded up).",
            valueName: "m/s"))
    var maximumSpeed: Double?

    @Option(
        name: .customLong("upload-window"),
        help: ArgumentHelp(
            "With --power: region monitoring sends the events of each window of this many seconds in one upload (default: each event at once); give the reporting interval (10) to compare like for like.",
            valueName: "seconds"))
    var uploadWindow: Double?

    func validate() throws {
        if let maximumSpeed, !(maximumSpeed > 0 && maximumSpeed.isFinite) {
            throw ValidationError("--maximum-speed must be a positive number of metres per second, not \(maximumSpeed)")
        }
        if let uploadWindow, !(uploadWindow > 0 && uploadWindow.isFinite) {
            throw ValidationError("--upload-window must be a positive number of seconds, not \(uploadWindow)")
        }
        if power {
            guard regions != nil || !tracks.isEmpty else { return }
            if regions == nil { throw ValidationError("--power with a --track needs its --regions file") }
            if tracks.count != 1 { throw ValidationError("--power compares one --track, not \(tracks.count)") }
            return
        }
        if maximumSpeed != nil || uploadWindow != nil {
            throw ValidationError("--maximum-speed and --upload-window belong to --power")
        }
        if regions == nil { throw ValidationError("give a --regions file") }
        if tracks.isEmpty { throw ValidationError("give at least one --track file") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, not \(threads)") }
        if subjects.count > tracks.count {
            throw ValidationError("\(subjects.count) --subject names for \(tracks.count) --track files")
        }
    }

    func run() throws {
        if power { return try printPowerComparison() }
        let clock = ContinuousClock()
        let started = clock.now
        let threadCount = threads ?? ProcessInfo.processInfo.activeProcessorCount
        // The tracks open while the regions load; errors come in the order of the steps.
        let opening = TrackOpening(paths: tracks)
        let regionList: [Region]
        let loaded: Result<Simulation, GeofencingError>
        do {
            regionList = try InputFiles.loadRegions(path: regions ?? "", threads: threadCount)
            loaded = Result { () throws(GeofencingError) in
                try Simulation(regions: regionList, policy: profile.policy)
            }
        } catch {
            _ = try? opening.wait()
            throw error
        }
        var inputs: [TrackInput] = []
        let named = SimulateCommand.defaultSubjects(for: tracks)
        for (i, opened) in try opening.wait().enumerated() {
            let subject = i < subjects.count ? subjects[i] : named[i]
            inputs.append(TrackInput(subject: subject, name: tracks[i], source: opened.source))
        }
        var simulation = try loaded.get()
        if map != nil { simulation.map = MapRecorder() }
        simulation.readsAhead = true
        simulation.workerThreads = threadCount
        var out = FileDescriptorOutput.standardOutput
        var isTerminal = Terminal.standardOutputIsTerminal
        if let output {
            let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw InputError.cannotOpen(path: output, reason: String(cString: strerror(errno))) }
            out = FileDescriptorOutput(fileDescriptor: fd)
            isTerminal = false
        }
        defer { if output != nil { out.close() } }
        let chosen = format ?? OutputFormat.defaultFormat(isTerminal: isTerminal)
        let showProgress = !quiet && Terminal.standardErrorIsTerminal
        var progressShown = false
        let totalBytes = tracks.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        let summary = try simulation.run(tracks: inputs, writer: chosen.makeWriter(), to: &out) { p in
            guard showProgress else { return }
            let elapsed = SimulateCommand.seconds(clock.now - started)
            guard elapsed > 1 else { return }
            progressShown = true
            let fraction = totalBytes > 0 && p.bytesRead > 0 ? Double(p.bytesRead) / Double(totalBytes) : nil
            Terminal.printError(
                ProgressLine.text(fixes: p.fixesRead, events: p.events, seconds: elapsed, fraction: fraction))
        }
        out.flush()
        if progressShown { Terminal.printError("\r\u{1B}[2K") }
        if let mapPath = map, let recorder = simulation.map {
            var svg = SVGMap(
                title: "geofence simulate: \(inputs.map(\.subject).joined(separator: ", "))",
                subtitle: "\(regions ?? "") · profile \(profile.rawValue)",
                regions: regionList, tracks: recorder.tracks, events: recorder.events)
            svg.coloring = mapColor.coloring
            do {
                try svg.render().write(toFile: mapPath, atomically: true, encoding: .utf8)
            } catch {
                throw InputError.cannotOpen(
                    path: mapPath, reason: "cannot write the map (\((error as NSError).localizedDescription))")
            }
        }
        if !quiet {
            Terminal.printError(summary.report(wallSeconds: SimulateCommand.seconds(clock.now - started)))
            if let mapPath = map { Terminal.printError("map written to \(mapPath)\n") }
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// `--power`: the bundled comparison, or one on the given track and regions.
    func printPowerComparison() throws {
        var comparison = PowerComparison(uploadWindow: uploadWindow)
        if let regions, let track = tracks.first {
            comparison.scenarios = [
                try PowerComparison.scenario(regionsPath: regions, trackPath: track, maximumSpeed: maximumSpeed)
            ]
        }
        try PowerComparison.printComparison(comparison)
    }

    /// The base name without extension of the track file `all[index]`, made unique among `all`
    /// by its position (`drive-2`).
    static func defaultSubject(forTrackAt index: Int, among all: [String]) -> String {
        defaultSubjects(for: all)[index]
    }

    /// ``defaultSubject(forTrackAt:among:)`` of every path in `all`, in O(n) (one call per path
    /// compared every pair of names: 8 % of loading a 200-track fleet). Names are compared as
    /// the engine compares subjects, as Swift strings: `café` spelled with U+00E9 and with
    /// `e` + U+0301 are the same name, so two files named so are two numbered subjects, not one.
    static func defaultSubjects(for all: [String]) -> [String] {
        let stems = all.map(stem)
        var count: [String: Int] = [:]
        for s in stems { count[s, default: 0] += 1 }
        return all.indices.map { k in count[stems[k]]! > 1 ? "\(stems[k])-\(k + 1)" : stems[k] }
    }

    /// The file's base name without extension (the name itself when that leaves nothing).
    private static func stem(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let s = (name as NSString).deletingPathExtension
        return s.isEmpty ? name : s
    }
}

/// `--profile` values.
enum Profile: String, CaseIterable, ExpressibleByArgument {
    case coreLocation
    case precise

    var policy: HysteresisPolicy {
        switch self {
        case .coreLocation: .coreLocation
        case .precise: .precise
        }
    }
}

/// `--map-color` values.
enum MapColoringOption: String, CaseIterable, ExpressibleByArgument {
    case speed, time
    var coloring: SVGMap.Coloring { self == .speed ? .speed : .time }
}

/// The one-line progress display on a terminal's standard error.
enum ProgressLine {
    /// `fraction` (0…1) fills the bar and shows a percentage; without it the bar cycles.
    static func text(fixes: Int, events: Int, seconds: Double, fraction: Double?) -> String {
        let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][Int(seconds * 8) % 10]
        let rate = Double(fixes) / max(seconds, 1e-9)
        let cells = fraction.map { min(20, max(0, Int($0 * 20))) } ?? Int(seconds) % 21
        let bar = String(repeating: "▰", count: cells) + String(repeating: "▱", count: 20 - cells)
        let percent = fraction.map { String(format: " %3.0f%%", min(1, $0) * 100) } ?? ""
        return "\r\u{1B}[2K\(spinner) \(bar)\(percent) \(grouped(fixes)) fixes · "
            + String(format: "%.2f M fixes/s · ", rate / 1e6) + "\(events) events · \(Int(seconds)) s"
    }

    static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, c) in s.enumerated() {
            if i > 0, (s.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }
}
