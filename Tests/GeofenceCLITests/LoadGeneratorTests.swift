import Foundation
import Geodesy
import GeofenceServer
import Hummingbird
import Logging
import NIOCore
import Testing

@testable import GeofenceCLI

@Suite("Load generator (geofence serve loadgen)")
struct LoadGeneratorTests {
    @Test("an answer is complete only once its whole Content-Length body is read; events are counted by cursor")
    func answers() throws {
        let body = #"{"accepted":1,"events":[{"cursor":1},{"cursor":2}]}"#
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: \(body.utf8.count)\r\n\r\n"
        #expect(DeviceDriver.completeAnswer(ByteBuffer(string: String(head.dropLast(2)))) == nil)
        #expect(DeviceDriver.completeAnswer(ByteBuffer(string: head + body.dropLast())) == nil)
        let whole = ByteBuffer(string: head + body)
        let (status, range) = try #require(DeviceDriver.completeAnswer(whole))
        #expect(status == 200)
        #expect(String(decoding: whole.readableBytesView[range], as: UTF8.self) == body)
        #expect(DeviceDriver.count(#""cursor""#, in: whole.readableBytesView[range]) == 2)
        let problem = ByteBuffer(string: "HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n")
        #expect(DeviceDriver.completeAnswer(problem)?.0 == 409)
    }

    @Test("fix bodies: coordinates in fixed point with six decimals, valid JSON, the same values as the walk")
    func fixBodies() throws {
        func fixed(_ v: Double) -> String {
            var bytes: [UInt8] = []
            Walker.appendFixed6(v, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(fixed(31.1) == "31.100000")
        #expect(fixed(-0.5) == "-0.500000")
        #expect(fixed(-0.0000004) == "0.000000")
        #expect(fixed(121.9999996) == "122.000000")
        #expect(fixed(-179.000001) == "-179.000001")
        #expect(fixed(0) == "0.000000")
        var walker = Walker(lat: 31, lon: 121, time: 1_000_000_000)
        var rng = SplitMix64(seed: 3)
        let body = walker.batch(3, rng: &rng)
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        let fixes = json?["fixes"] as? [[String: Any]] ?? []
        #expect(fixes.count == 3)
        #expect(fixes.map { $0["timestamp"] as? Int } == [1_000_000_001, 1_000_000_002, 1_000_000_003])
        let last = fixes.last?["latitude"] as? Double ?? .nan
        #expect(abs(last - walker.lat) <= 5e-7)
    }

    @Test("prepared requests are byte for byte the requests encoded when sent, in the same order, times increasing")
    func preparedRequests() throws {
        let options = LoadGenerator.Options(
            url: "http://127.0.0.1:1", key: "k", devices: 2, batchSize: 5, requestsPerSecond: 0,
            duration: .seconds(1), seed: 11, runID: "p")
        var live = DeviceRequests(options: options, index: 1, host: "127.0.0.1", port: 1)
        var ahead = DeviceRequests(options: options, index: 1, host: "127.0.0.1", port: 1)
        ahead.prepare(bytes: 1_500)
        let prepared = ahead.preparedLeft
        #expect(prepared >= 2)
        var times: [Int] = []
        for _ in 0..<(prepared + 3) {
            let a = ahead.next()
            let b = live.next()
            #expect(a == b)
            let text = String(buffer: a)
            let body = try #require(text.range(of: "\r\n\r\n")).upperBound
            let json = try JSONSerialization.jsonObject(with: Data(text[body...].utf8)) as? [String: Any]
            let fixes = json?["fixes"] as? [[String: Any]] ?? []
            #expect(fixes.count == 5)
            times += fixes.compactMap { $0["timestamp"] as? Int }
        }
        #expect(ahead.preparedLeft == 0)
        #expect(ahead.encodedLive == 3)
        #expect(live.encodedLive == prepared + 3)
        #expect(times == Array(1_000_000_002...(1_000_000_001 + 5 * (prepared + 3))))
        var none = DeviceRequests(options: options, index: 0, host: "127.0.0.1", port: 1)
        none.prepare(bytes: 0)
        #expect(none.preparedLeft == 0)
    }

    @Test(
        "a short run against a real server: every request answered, every fix accepted, the events counted are the ones stored"
    )
    func shortRun() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "loadgen-\(UUID().uuidString)/g.sqlite"
        ).path
        let store = try await GeofenceServer.openStore(path)
        var config = ServerConfiguration()
        config.port = 0
        config.database = path
        var quiet = Logger(label: "loadgen-test")
        quiet.logLevel = .critical
        let server = GeofenceServer(configuration: config, store: store, logger: quiet)
        let key = try await server.createAPIKey(tenant: "load")
        let (ports, found) = AsyncStream.makeStream(of: Int.self)
        let app = try await server.makeApplication { found.yield($0) }
        let running = Task { try await app.runService(gracefulShutdownSignals: []) }
        var it = ports.makeAsyncIterator()
        let port = try #require(await it.next())
        let options = LoadGenerator.Options(
            url: "http://127.0.0.1:\(port)", key: key, devices: 3, batchSize: 50,
            requestsPerSecond: 0, duration: .milliseconds(500), seed: 7, runID: "t",
            preparedBytes: 3 * 4_000)
        let report = try await LoadGenerator.with(options) { gen in
            _ = try await gen.importRegions(20_000)
            return try await gen.run()
        }
        running.cancel()
        _ = try? await running.value
        // How many requests fit in 500 ms depends on the machine; the rest holds for any count.
        #expect(report.requests >= 1)
        #expect(report.errors == 0)
        #expect(report.fixes == report.requests * 50)
        #expect(report.latencies.count == report.requests)
        #expect(report.timings.count == report.requests)
        #expect(zip(report.timings, report.timings.dropFirst()).allSatisfy { $0.sentSeconds <= $1.sentSeconds })
        #expect(report.timings.map(\.latencySeconds).sorted() == report.latencies)
        #expect(report.timingsCSV.split(separator: "\n").count == report.requests + 1)
        // One request (about 5 KB) prepared per device; the rest were encoded while running.
        #expect(report.encodedLive == report.requests - 3)
        #expect(report.cpuSeconds > 0)
        let stored = try await store.events(tenant: "load", after: 0, limit: 1_000_000).count
        #expect(report.events == stored)
        print("loadgen test: \(report.requests) requests, \(stored) events")
        try await store.close()
    }
}
