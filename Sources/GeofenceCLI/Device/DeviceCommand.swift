import ArgumentParser
import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import RegionPlanner

/// `geofence device`: a phone with 20 region slots played along a track against a running
/// `geofence serve`.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Play a phone with 20 region slots along a track against a running geofence serve.",
        discussion: """
            The phone asks the server what to monitor (GET /v1/devices/{id}/plan), monitors it on a \
            simulated device (Core Location's rules and slot limit), asks again when it leaves the \
            plan's re-plan circle or a tier parent, revalidates the plan after its max-age (a 304 \
            changes nothing), and stops monitoring when the server's switch is off \
            (PUT /v1/settings). The fixes are reported to the server (POST /v1/devices/{id}/locations).

            Prints each event as the phone reports it (jsonl: {"event","region","source","time"}), \
            then plans fetched, 304s, churn (registrations, removals) and events; the number of \
            events the server's engine found in the same fixes is printed beside the phone's.

            The key may be the phone's own: a device key bound to the device id (create-key \
            --scope device --device ID) does all the phone does, and nothing else.

            Example (the README's tour; D=Sources/GeofenceCLI/Resources/Demo):
              KEY=$(geofence serve create-key --tenant demo --database demo.sqlite)
              PHONE=$(geofence serve create-key --tenant demo --database demo.sqlite \\
                      --scope device --device border-drive)
              geofence serve --database demo.sqlite &
              curl -X POST -H "Authorization: Bearer $KEY" --data @$D/provinces.geojson \\
                   http://127.0.0.1:8080/v1/regions/import
              geofence device --server http://127.0.0.1:8080 --key $PHONE --track $D/border-drive.csv
            """
    )

    @Option(help: ArgumentHelp("The server's base URL.", valueName: "url"))
    var server: String

    @Option(
        help: ArgumentHelp(
            "An API key: the phone's device key, or an admin key (geofence serve create-key).", valueName: "key"))
    var key: String

    @Option(help: ArgumentHelp("A track file (GPX, NMEA, CSV or GeoJSON).", valueName: "file"))
    var track: String

    @Option(help: ArgumentHelp("The device id (default: the track file's name).", valueName: "id"))
    var device: String?

    @Flag(help: "Do not report the fixes to the server.")
    var noReport = false

    @Option(
        help: ArgumentHelp(
            "Trust this PEM certificate (a private CA, or a self-signed server's own) for an https server.",
            valueName: "file"))
    var caCertificate: String?

    @Flag(help: "Do not verify the https server's certificate (a throw-away test server only).")
    var insecure = false

    func validate() throws {
        guard let u = URL(string: server), let scheme = u.scheme, ["http", "https"].contains(scheme), u.host != nil
        else {
            throw ValidationError("--server must be an http(s) URL such as http://127.0.0.1:8080, not \"\(server)\"")
        }
        if key.isEmpty { throw ValidationError("--key is empty") }
    }

    func run() async throws {
        let id = device ?? SimulateCommand.defaultSubject(forTrackAt: 0, among: [track])
        let (fixes, rejected) = try DeviceRun.fixes(track: track, subject: id)
        var run = DeviceRun(server: server, key: key, device: id)
        if noReport { run.reportBatch = 0 }
        run.fixInterval = DeviceRun.longestInterval(fixes)
        let client = try ClientTLS(caCertificatePath: caCertificate, insecure: insecure).makeHTTPClient()
        run.transport = AsyncHTTPClientPlanTransport(client: client)
        let summary: DeviceRun.Summary
        do {
            summary = try await run.run(
                fixes,
                onEvent: { e in
                    let line: [String: String] = [
                        "event": e.kind.rawValue, "region": e.identifier, "source": e.source,
                        "time": TimestampFormat.iso8601(e.event.time),
                    ]
                    let text = line.keys.sorted().map { JSONText.string($0) + ":" + JSONText.string(line[$0]!) }.joined(
                        separator: ",")
                    print("{\(text)}")
                })
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        fflush(nil) // the events before the summary, also when both go to one terminal
        Terminal.printError(DeviceCommand.report(summary, rejected: rejected, reported: !noReport))
    }

    static func report(_ s: DeviceRun.Summary, rejected: Int, reported: Bool) -> String {
        var lines = [
            "fixes: \(s.fixes)" + (rejected > 0 ? " (\(rejected) unreadable records skipped)" : ""),
            "plans fetched: \(s.plans.fetched), not modified (304): \(s.plans.notModified), failed: \(s.plans.failures)",
            "churn: \(s.follower.registrations) registrations, \(s.follower.removals) removals",
            "events: \(s.events.count)"
                + (reported
                    ? " (the server's engine, with its own profile, found \(s.serverEvents) in the same fixes)" : ""),
        ]
        if let why = s.reportError { lines.append("fixes reported: \(s.fixesReported), then stopped: \(why)") }
        for e in s.errors.prefix(5) { lines.append("error: \(e)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
