import AsyncHTTPClient
import Foundation
import Geodesy
import GeofenceServer
import NIOCore
import NIOPosix

/// A bounded load generator for `geofence serve`: simulated devices post fix batches at a
/// paced rate for a fixed time, and the run reports throughput and latency percentiles.
///
/// ```swift
/// let options = LoadGenerator.Options(url: "http://127.0.0.1:8080", key: key, devices: 16,
///                                     batchSize: 1, requestsPerSecond: 2_000, duration: .seconds(10))
/// let report = try await LoadGenerator.with(options) { try await $0.run() }
/// print(report.summary)
/// ```
///
/// Each device is one keep-alive connection with one request in flight at a time (closed
/// loop; all devices on one event-loop thread, `LoadGenerator+Device`), paced to
/// `requestsPerSecond / devices` against a fixed schedule, the devices' schedules offset
/// evenly across one period (device d starts d / requestsPerSecond seconds in), so the
/// requests arrive at a steady `requestsPerSecond`, not in bursts of `devices` (unless
/// `aligned`); a device that falls behind sends
/// at once, and `late` counts those requests (latency is measured from the send, so a
/// saturated server shows as a lower achieved rate, not as hidden queueing). Devices walk
/// randomly at 15 m/s (seeded) through the box the regions are spread over, one fix per
/// simulated second, so tracks cross regions and produce events. Bounded: it stops after
/// `duration` and waits only for the requests in flight.
struct LoadGenerator: Sendable {
    struct Options: Sendable {
        var url: String
        var key: String
        var devices: Int
        var batchSize: Int
        /// Total request rate across devices; 0 sends as fast as answers come.
        var requestsPerSecond: Double
        var duration: Duration
        /// Circles to import first (0: use what the tenant has).
        var regions: Int = 0
        var seed: UInt64 = 1
        /// Prefix of the device ids (unique per run, so fixes are never out of order).
        var runID: String = "lg"
        /// Whether every device's schedule starts at the same instant (all devices send at
        /// once, `devices`-request bursts) instead of being spread evenly over the period.
        var aligned: Bool = false
        /// How an `https` server is trusted.
        var tls = ClientTLS()
        /// Bytes of requests, across devices, encoded before the timed run (0: each request is
        /// encoded when it is sent), so that the generator's own work during the run is only
        /// sending bytes and reading answers (``DeviceRequests``).
        var preparedBytes = 0
    }

    /// The area regions and devices are spread over (Shanghai, about 190 × 220 km).
    static let box = (minLat: 30.5, maxLat: 32.5, minLon: 120.5, maxLon: 122.5)

    let options: Options
    let client: HTTPClient

    /// Runs `body` with a generator and shuts its HTTP client down afterwards, whether `body`
    /// returns or throws (an HTTP client dropped without a shutdown stops the process).
    static func with<T: Sendable>(
        _ options: Options, _ body: (LoadGenerator) async throws -> T
    ) async throws -> T {
        let gen = try LoadGenerator(options: options)
        do {
            let result = try await body(gen)
            try await gen.client.shutdown()
            return result
        } catch {
            try? await gen.client.shutdown()
            throw error
        }
    }

    private init(options: Options) throws {
        self.options = options
        var config = HTTPClient.Configuration()
        try options.tls.apply(to: &config)
        config.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(8, options.devices + 2))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
    }

    // MARK: Regions

    /// Imports `count` seeded random circles (radius 50–500 m) in requests of 10,000 (the
    /// server's default `maxBatchSize`); returns the seconds it took.
    func importRegions(_ count: Int) async throws -> Double {
        var rng = SplitMix64(seed: options.seed ^ 0x5EED)
        let start = ContinuousClock.now
        var done = 0
        while done < count {
            let n = min(10_000, count - done)
            var body = #"{"type":"FeatureCollection","features":["#
            body.reserveCapacity(n * 140)
            for i in done..<(done + n) {
                if i > done { body += "," }
                let lat = rng.uniform(Self.box.minLat, Self.box.maxLat)
                let lon = rng.uniform(Self.box.minLon, Self.box.maxLon)
                let radius = (rng.uniform(50, 500)).rounded()
                body +=
                    #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"id":"lg-\#(i)","radius":\#(radius)}}"#
            }
            body += "]}"
            let (status, text) = try await post("/v1/regions/import", body: body)
            guard status == 200 else {
                throw LoadGeneratorError.http(path: "/v1/regions/import", status: status, body: text)
            }
            done += n
        }
        return (ContinuousClock.now - start).secondsDouble
    }

    // MARK: Load

    /// Runs the load: the devices' first requests encoded (`options.preparedBytes`, not
    /// timed), then every device on one event-loop thread of its own
    /// (``runDevices(_:on:)``), then the report.
    func run() async throws -> LoadReport {
        let requests = try await prepareRequests()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = ContinuousClock()
        let start = clock.now
        let cpuBefore = Self.processCPUSeconds()
        do {
            let results = try await runDevices(requests, on: group.next())
            let elapsed = (clock.now - start).secondsDouble
            let cpu = Self.processCPUSeconds() - cpuBefore
            try await group.shutdownGracefully()
            return LoadReport(options: options, elapsedSeconds: elapsed, cpuSeconds: cpu, results: results)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Every device's requests, each with its share of `options.preparedBytes` encoded ahead,
    /// the devices in parallel.
    private func prepareRequests() async throws -> [DeviceRequests] {
        let (host, port, _) = try Self.endpoint(options.url)
        let options = self.options
        let share = options.preparedBytes / options.devices
        return await withTaskGroup(of: (Int, DeviceRequests).self) { group in
            for d in 0..<options.devices {
                group.addTask {
                    var requests = DeviceRequests(options: options, index: d, host: host, port: port)
                    requests.prepare(bytes: share)
                    return (d, requests)
                }
            }
            var all: [(Int, DeviceRequests)] = []
            for await pair in group { all.append(pair) }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// User and system CPU seconds this process has used so far (`getrusage`).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// POSTs `body` (the set-up requests; the load itself goes through ``DeviceDriver``);
    /// returns the status and the answer's text.
    func post(_ path: String, body: String) async throws -> (Int, String) {
        var req = HTTPClientRequest(url: options.url + path)
        req.method = .POST
        req.headers.add(name: "Authorization", value: "Bearer \(options.key)")
        req.headers.add(name: "Content-Type", value: "application/json")
        req.body = .bytes(ByteBuffer(string: body))
        let resp = try await client.execute(req, timeout: .seconds(120))
        let buf = try await resp.body.collect(upTo: 64 << 20)
        return (Int(resp.status.code), String(buffer: buf))
    }
}

/// One device's tally.
struct DeviceResult: Sendable {
    /// Each answered (or failed) request, in the order it was sent.
    var timings: [RequestTiming] = []
    var fixes = 0
    var events = 0
    var errors = 0
    var late = 0
    /// Requests encoded during the run, after the prepared ones ran out.
    var encodedLive = 0
}

extension DeviceResult {
    mutating func record(sent: TimeAmount, latency: TimeAmount) {
        timings.append(
            RequestTiming(
                sentSeconds: Double(sent.nanoseconds) / 1e9, latencySeconds: Double(latency.nanoseconds) / 1e9))
    }
}

/// What a run achieved.
struct LoadReport: Sendable {
    var options: LoadGenerator.Options
    var elapsedSeconds: Double
    var requests: Int
    var fixes: Int
    var events: Int
    var errors: Int
    var late: Int
    /// Requests encoded during the run (not prepared ahead).
    var encodedLive: Int
    /// CPU seconds the generator used during the run (its threads and its share of the
    /// kernel's socket work), preparation and region import excluded.
    var cpuSeconds: Double
    /// Sorted request latencies in seconds.
    var latencies: [Double]
    /// Every request's send time and latency, in the order they were sent.
    var timings: [RequestTiming]

    init(options: LoadGenerator.Options, elapsedSeconds: Double, cpuSeconds: Double, results: [DeviceResult]) {
        self.options = options
        self.elapsedSeconds = elapsedSeconds
        self.cpuSeconds = cpuSeconds
        timings = results.flatMap(\.timings).sorted { $0.sentSeconds < $1.sentSeconds }
        latencies = timings.map(\.latencySeconds).sorted()
        requests = latencies.count
        fixes = results.map(\.fixes).reduce(0, +)
        events = results.map(\.events).reduce(0, +)
        errors = results.map(\.errors).reduce(0, +)
        late = results.map(\.late).reduce(0, +)
        encodedLive = results.map(\.encodedLive).reduce(0, +)
    }

    /// The latency at quantile `q` (nearest rank), in milliseconds.
    func percentileMilliseconds(_ q: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let rank = min(latencies.count - 1, max(0, Int((q * Double(latencies.count)).rounded(.up)) - 1))
        return latencies[rank] * 1_000
    }

    /// ``timings`` as CSV: `sent_s,latency_ms`, one request a line, for a look at when the slow
    /// ones were sent (`--latencies`).
    var timingsCSV: String {
        "sent_s,latency_ms\n"
            + timings.map { String(format: "%.6f,%.3f\n", $0.sentSeconds, $0.latencySeconds * 1_000) }.joined()
    }

    var summary: String {
        func f(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }
        return """
            devices \(options.devices), batch \(options.batchSize), target \(options.requestsPerSecond > 0 ? f(options.requestsPerSecond, 0) + " req/s" : "unpaced"), \(f(elapsedSeconds, 2)) s
            requests \(requests) (\(f(Double(requests) / elapsedSeconds)) /s), errors \(errors), late \(late)
            fixes accepted \(fixes) (\(f(Double(fixes) / elapsedSeconds, 0)) fixes/s), events \(events)
            latency ms: p50 \(f(percentileMilliseconds(0.5), 2)), p90 \(f(percentileMilliseconds(0.9), 2)), p99 \(f(percentileMilliseconds(0.99), 2)), max \(f((latencies.last ?? 0) * 1_000, 2))
            generator CPU \(f(cpuSeconds, 2)) s during the run, requests encoded during the run \(encodedLive) of \(requests)
            """
    }
}

/// One request's send time, from the run's start, and its latency.
struct RequestTiming: Sendable {
    var sentSeconds: Double
    var latencySeconds: Double
}

/// A device's random walk at 15 m/s, one fix per simulated second, kept inside the box.
struct Walker {
    var lat: Double
    var lon: Double
    var time: Double
    var heading = 0.0

    /// The next `n` fixes as a request body, `{"fixes":[…]}`, written as bytes with the
    /// coordinates in fixed point (six decimals): a tenth of the CPU that formatting `Double`s
    /// into a `String` took, so the generator takes little from the cores it measures
    /// (docs/server.md, "Every core for one tenant").
    mutating func batch(_ n: Int, rng: inout SplitMix64) -> [UInt8] {
        var s: [UInt8] = Array(#"{"fixes":["#.utf8)
        s.reserveCapacity(n * 96 + 16)
        for i in 0..<n {
            heading += rng.uniform(-0.3, 0.3)
            let step = 15.0 / 111_320.0
            lat += step * cos(heading)
            lon += step * sin(heading) / cos(lat * .pi / 180)
            if lat < LoadGenerator.box.minLat || lat > LoadGenerator.box.maxLat
                || lon < LoadGenerator.box.minLon || lon > LoadGenerator.box.maxLon
            {
                heading += .pi
                lat = min(max(lat, LoadGenerator.box.minLat), LoadGenerator.box.maxLat)
                lon = min(max(lon, LoadGenerator.box.minLon), LoadGenerator.box.maxLon)
            }
            time += 1
            if i > 0 { s.append(UInt8(ascii: ",")) }
            s += #"{"latitude":"#.utf8
            Self.appendFixed6(lat, to: &s)
            s += #","longitude":"#.utf8
            Self.appendFixed6(lon, to: &s)
            s += #","timestamp":"#.utf8
            Self.appendDecimal(UInt64(time), to: &s)
            s += #","horizontalAccuracy":10}"#.utf8
        }
        s += "]}".utf8
        return s
    }

    /// `v` rounded to six decimals, e.g. `-31.000120`.
    static func appendFixed6(_ v: Double, to s: inout [UInt8]) {
        let micro = Int64((v * 1e6).rounded())
        if micro < 0 { s.append(UInt8(ascii: "-")) }
        appendDecimal(micro.magnitude / 1_000_000, to: &s)
        s.append(UInt8(ascii: "."))
        appendDecimal(micro.magnitude % 1_000_000, width: 6, to: &s)
    }

    /// `v` in decimal, with leading zeros up to `width` digits; written in place (no
    /// temporary arrays).
    static func appendDecimal(_ v: UInt64, width: Int = 1, to s: inout [UInt8]) {
        var digits = 1
        var rest = v / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        digits = max(digits, width)
        s.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var v = v
        var k = s.count - 1
        while v > 0 {
            s[k] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            k -= 1
        }
    }
}

enum LoadGeneratorError: Error, CustomStringConvertible {
    case http(path: String, status: Int, body: String)
    case url(String)
    var description: String {
        switch self {
        case .http(let path, let status, let body): "\(path) answered \(status): \(body.prefix(300))"
        case .url(let url): "--url \(url): expected http(s)://HOST:PORT"
        }
    }
}

extension Duration {
    var secondsDouble: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
