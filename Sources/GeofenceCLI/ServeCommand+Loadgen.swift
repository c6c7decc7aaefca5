import ArgumentParser
import Foundation
import GeofenceServer

extension ServeCommand {
    /// `geofence serve loadgen`: a bounded load generator against a running server.
    public struct Loadgen: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "loadgen",
            abstract: "Send paced fix batches to a running server and report throughput and latency.",
            discussion: """
                Simulated devices walk at 15 m/s through a 2° × 2° box around Shanghai, one fix \
                per simulated second; each device keeps one request in flight, paced to \
                --rate / --devices requests per second (the devices' schedules spread evenly over \
                the period, so requests arrive at a steady --rate; --aligned starts them all at \
                once: bursts of --devices requests), for --duration seconds. With --regions N \
                it first imports N seeded random circles (50–500 m) into the key's tenant.

                Examples (docs/server.md has the figures):
                  geofence serve loadgen --key $KEY --regions 100000 --devices 4 --batch 10000 --rate 0 --duration 20
                  geofence serve loadgen --key $KEY --devices 32 --batch 1 --rate 2000 --duration 20
                """
        )

        @Option(help: "Server base URL.")
        var url: String = "http://127.0.0.1:8080"

        @Option(help: "API key of the tenant to load.")
        var key: String

        @Option(help: "Simulated devices (concurrent requests).")
        var devices: Int = 8

        @Option(help: "Fixes per request (1 to the server's maxBatchSize).")
        var batch: Int = 1

        @Option(help: "Total requests per second across devices (0: as fast as the answers come).")
        var rate: Double = 100

        @Option(help: "Seconds to run.")
        var duration: Double = 10

        @Option(help: "Random circles to import before the run (0: none).")
        var regions: Int = 0

        @Option(help: "Random seed (regions and walks).")
        var seed: UInt64 = 1

        @Option(
            help:
                "Device ids are PREFIX-0, PREFIX-1, … (default: a random prefix per run, so no fix goes back in time).")
        var runId: String?

        @Flag(help: "Start every device's schedule at the same instant (bursts of --devices requests).")
        var aligned: Bool = false

        @Option(help: "Trust this PEM certificate for an https --url (a private CA, or the server's self-signed one).")
        var caCertificate: String?

        @Flag(help: "Do not verify an https server's certificate (a throw-away test server only).")
        var insecure: Bool = false

        @Option(
            help: ArgumentHelp(
                "Megabytes of requests to encode before the timed run (0: each when it is sent).",
                discussion: "The same requests either way; prepared, the generator only sends bytes while it is timed."
            ))
        var prepareMb: Int = 0

        @Option(help: "Write each request's send time (s from the run's start) and latency (ms) to this CSV file.")
        var latencies: String?

        public init() {}

        public func validate() throws {
            guard devices >= 1, devices <= 10_000 else { throw ValidationError("--devices must be in 1...10000") }
            guard batch >= 1, batch <= 100_000 else { throw ValidationError("--batch must be in 1...100000") }
            guard rate >= 0, rate.isFinite else { throw ValidationError("--rate must be 0 or more") }
            guard duration > 0, duration <= 3_600 else {
                throw ValidationError("--duration must be in (0, 3600] seconds")
            }
            guard regions >= 0 else { throw ValidationError("--regions must be 0 or more") }
            guard prepareMb >= 0, prepareMb <= 65_536 else {
                throw ValidationError("--prepare-mb must be in 0...65536")
            }
        }

        public func run() async throws {
            let runID = runId ?? "lg\(UInt32.random(in: 0...UInt32.max))"
            let options = LoadGenerator.Options(
                url: url.hasSuffix("/") ? String(url.dropLast()) : url, key: key,
                devices: devices, batchSize: batch, requestsPerSecond: rate,
                duration: .milliseconds(Int64(duration * 1_000)), regions: regions,
                seed: seed, runID: runID, aligned: aligned,
                tls: ClientTLS(caCertificatePath: caCertificate, insecure: insecure),
                preparedBytes: prepareMb << 20)
            try await LoadGenerator.with(options) { gen in
                if regions > 0 {
                    let seconds = try await gen.importRegions(regions)
                    print("imported \(regions) regions in \(String(format: "%.2f", seconds)) s")
                }
                let report = try await gen.run()
                if let latencies { try report.timingsCSV.write(toFile: latencies, atomically: true, encoding: .utf8) }
                print(report.summary)
            }
        }
    }
}
