import Foundation
import Testing

@testable import GeofenceServer

#if canImport(Glibc)
import Glibc
#endif

/// ``ServerConfiguration/idleTimeout`` and ``ServerConfiguration/maxConnections``: silent
/// connections are closed, answers in progress are not; the connection cap respects the
/// open-file limit.
@Suite("Connection limits")
struct ConnectionLimitTests {
    typealias Budget = RequestBudgetTests

    /// Reads `fd` until the server closes it or has sent an answer with a body; returns what it
    /// sent (empty: closed without an answer). The blocking reads run on a Dispatch thread: on
    /// the concurrency pool (two threads here) they would starve the server's own tasks.
    static func readToClose(_ fd: Int32) async -> String {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: blockingReadToClose(fd)) }
        }
    }

    /// Reads one whole answer (its head, then `content-length` bytes of body), or what came
    /// before the server closed the connection.
    private static func blockingReadToClose(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return String(decoding: received, as: UTF8.self) }
            received += buffer.prefix(n)
            if let length = completeAnswerLength(received), received.count >= length {
                return String(decoding: received, as: UTF8.self)
            }
        }
    }

    /// The length of the answer `bytes` begins with, once its head is complete.
    private static func completeAnswerLength(_ bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        let bodyLength =
            head.split(separator: "\r\n").lazy.compactMap { line -> Int? in
                guard line.hasPrefix("content-length:") else { return nil }
                return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        return text[..<end.upperBound].utf8.count + bodyLength
    }

    @Test(
        "a silent connection and one whose headers stop half-way are closed; a request being answered is not",
        .timeLimit(.minutes(5)))
    func idleConnectionsClosed() async throws {
        let probe = Budget.Probe()
        // The limit only stops a hang: in a full parallel run this test has taken 43–80 s, most
        // of it waiting for Swift's pool, which the other suites keep busy.
        // 2 s: the working connection is idle, too, until its request is read; a shorter
        // timeout could close it first on a loaded machine (the test then hangs to its limit):
        // one full parallel run failed so at 500 ms, on the shared event loops.
        try await Budget.withServer(probe, idleTimeout: .seconds(2)) { port in
            let working = try Budget.connectedSocket(port)
            defer { close(working) }
            let request = Array("GET /v1/work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            #expect(request.withUnsafeBytes { send(working, $0.baseAddress, $0.count, 0) } == request.count)
            await probe.started.wait()

            let silent = try Budget.connectedSocket(port)
            defer { close(silent) }
            let slow = try Budget.connectedSocket(port)
            defer { close(slow) }
            let partial = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8) // no blank line
            #expect(partial.withUnsafeBytes { send(slow, $0.baseAddress, $0.count, 0) } == partial.count)
            // Both are closed by the server, without an answer (else these reads never return).
            #expect(await Self.readToClose(silent).isEmpty)
            #expect(await Self.readToClose(slow).isEmpty)

            // The idle timeout has passed several times over for the request in progress too:
            // it still gets its answer.
            probe.finish.fire()
            let answer = await Self.readToClose(working)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        }
    }

    @Test("the connection cap never exceeds the open-file limit minus the descriptors kept for the store")
    func connectionCapWithinFileLimit() throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        var config = ServerConfiguration()
        config.maxConnections = 1_000_000
        let allowed = Int(clamping: limit.rlim_cur) - ServerConfiguration.reservedDescriptors
        #expect(config.effectiveMaxConnections == max(1, allowed))
        config.maxConnections = 10
        #expect(config.effectiveMaxConnections == min(10, allowed))
    }

    @Test("idleTimeoutSeconds and maxConnections are read from the configuration file and checked")
    func configured() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("conn-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"idleTimeoutSeconds": 5, "maxConnections": 300}"#.utf8).write(to: file)
        var c = ServerConfiguration()
        try c.apply(configFile: file.path)
        #expect(c.idleTimeout == .seconds(5) && c.maxConnections == 300)
        for (bad, key) in [
            (#"{"idleTimeoutSeconds": 0}"#, "idleTimeoutSeconds"), (#"{"maxConnections": 0.5}"#, "maxConnections"),
        ] {
            try Data(bad.utf8).write(to: file)
            var d = ServerConfiguration()
            #expect { try d.apply(configFile: file.path) } throws: { ($0 as? ConfigurationError)?.key == key }
        }
    }
}
