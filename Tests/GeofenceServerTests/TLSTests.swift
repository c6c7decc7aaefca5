import AsyncHTTPClient
import Foundation
import GeofenceServer
import NIOCore
import Testing

@testable import GeofenceCLI

/// HTTPS in the server (`--tls-certificate` / `--tls-key`), with a throw-away self-signed
/// certificate made by `openssl` for 127.0.0.1: the server answers over TLS, the device tool
/// and the load generator connect when told to trust it, and a client that trusts only the
/// system's roots is refused.
@Suite("TLS: the server serves HTTPS with a given certificate")
struct TLSTests {
    /// A self-signed P-256 certificate for 127.0.0.1 and localhost, valid for a day, in a fresh
    /// folder: (certificate, key).
    static func selfSignedCertificate() throws -> (certificate: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        let openssl = try SpawnedProcess(
            executable: "/usr/bin/env",
            arguments: [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=geofence test",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ],
            environment: ProcessInfo.processInfo.environment, standardOutput: devNull, standardError: devNull)
        #expect(openssl.waitUntilExit() == 0, "openssl req failed")
        return (certificate, key)
    }

    @Test("HTTPS answers with the given certificate; the device tool and the load generator connect")
    func https() async throws {
        let (certificate, key) = try Self.selfSignedCertificate()
        try await Harness.run(configure: { $0.tls = ServerTLS(certificatePath: certificate, keyPath: key) }) { h in
            let apiKey = try await h.key("acme")
            let base = "https://127.0.0.1:\(h.port)"
            let trusting = try ClientTLS(caCertificatePath: certificate).makeHTTPClient()
            do {
                let health = try await trusting.execute(HTTPClientRequest(url: base + "/health"), timeout: .seconds(10))
                #expect(health.status == .ok)
                var report = HTTPClientRequest(url: base + "/v1/devices/tls-phone/locations")
                report.method = .POST
                report.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
                report.body = .bytes(ByteBuffer(string: fixJSON(52.5, 13.4, t: h.clock.date.timeIntervalSince1970)))
                #expect(try await trusting.execute(report, timeout: .seconds(10)).status == .ok)

                // The device tool, trusting the certificate (geofence device --ca-certificate).
                var run = DeviceRun(server: base, key: apiKey, device: "tls-device")
                run.transport = AsyncHTTPClientPlanTransport(client: trusting)
                let fixes = DeviceLoopTests.track(device: "tls-device").prefix(30)
                let summary = try await run.run(Array(fixes))
                #expect(summary.errors.isEmpty, "\(summary.errors)")
                #expect(summary.fixesReported == 30, "\(summary)")
            } catch {
                try? await trusting.shutdown()
                throw error
            }
            try await trusting.shutdown()

            // The load generator (geofence serve loadgen --url https://… --ca-certificate).
            let options = LoadGenerator.Options(
                url: base, key: apiKey, devices: 2, batchSize: 10, requestsPerSecond: 0,
                duration: .milliseconds(300), seed: 3, runID: "tls", tls: ClientTLS(caCertificatePath: certificate))
            let load = try await LoadGenerator.with(options) { try await $0.run() }
            #expect(load.requests >= 1 && load.errors == 0, "\(load.summary)")

            // A client that trusts only the system's roots refuses the self-signed certificate;
            // --insecure connects.
            let strict = try ClientTLS().makeHTTPClient()
            await #expect(throws: (any Error).self) {
                _ = try await strict.execute(HTTPClientRequest(url: base + "/health"), timeout: .seconds(2))
            }
            try await strict.shutdown()
            let insecure = try ClientTLS(insecure: true).makeHTTPClient()
            let answer = try await insecure.execute(HTTPClientRequest(url: base + "/health"), timeout: .seconds(10))
            #expect(answer.status == .ok)
            try await insecure.shutdown()
        }
    }

    /// Whether `GET /health` over HTTPS succeeds on a fresh connection from a client that trusts
    /// only `certificate`.
    ///
    /// AsyncHTTPClient retries a failed handshake until the deadline, so a "no" always takes the
    /// whole `timeout`: the checks that expect one pass a short one. A "yes" returns as soon as
    /// it comes; its generous default keeps a loaded machine (tests in parallel) from turning a
    /// slow handshake into a "no".
    static func healthy(port: Int, trusting certificate: String, timeout: Duration = .seconds(30)) async throws -> Bool
    {
        let client = try ClientTLS(caCertificatePath: certificate).makeHTTPClient()
        let answer = try? await client.execute(
            HTTPClientRequest(url: "https://127.0.0.1:\(port)/health"), timeout: .init(timeout))
        try await client.shutdown()
        return answer?.status == .ok
    }

    @Test("a reload (SIGHUP) serves the renewed certificate to new connections; an unreadable one keeps the current")
    func reload() async throws {
        let first = try Self.selfSignedCertificate()
        let renewed = try Self.selfSignedCertificate()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        func install(_ pair: (certificate: String, key: String)) throws {
            for (from, to) in [(pair.certificate, certificate), (pair.key, key)] {
                try? FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
        }
        try install(first)
        try await Harness.run(configure: { $0.tls = ServerTLS(certificatePath: certificate, keyPath: key) }) { h in
            #expect(try await Self.healthy(port: h.port, trusting: first.certificate))
            #expect(try await !Self.healthy(port: h.port, trusting: renewed.certificate, timeout: .seconds(2)))
            try install(renewed)
            try h.server.reloadTLS()
            #expect(try await Self.healthy(port: h.port, trusting: renewed.certificate))
            #expect(try await !Self.healthy(port: h.port, trusting: first.certificate, timeout: .seconds(2)))
            // A renewal caught half-written: the reload fails and the current certificate stays.
            try Data("-----BEGIN CERTIFICATE-----\ntruncated".utf8).write(to: URL(fileURLWithPath: certificate))
            #expect(throws: ConfigurationError.self) { try h.server.reloadTLS() }
            #expect(try await Self.healthy(port: h.port, trusting: renewed.certificate))
            // The signal does the same.
            try install(first)
            kill(getpid(), SIGHUP)
            var reloaded = false
            for _ in 0..<50 where !reloaded {
                reloaded = try await Self.healthy(port: h.port, trusting: first.certificate, timeout: .seconds(2))
                if !reloaded { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(reloaded, "SIGHUP reloaded the certificate")
        }
    }

    @Test("a missing or unreadable certificate or key is a configuration error naming it")
    func badFiles() throws {
        let (certificate, key) = try Self.selfSignedCertificate()
        var config = ServerConfiguration()
        config.tls = ServerTLS(certificatePath: certificate + ".missing", keyPath: key)
        let missing = #expect(throws: ConfigurationError.self) { try config.validate() }
        #expect(missing?.key == "tlsCertificate", "\(String(describing: missing))")
        config.tls = ServerTLS(certificatePath: certificate, keyPath: certificate)
        let notAKey = #expect(throws: ConfigurationError.self) { try config.validate() }
        #expect(notAKey?.key == "tlsKey", "\(String(describing: notAKey))")
        config.tls = ServerTLS(certificatePath: certificate, keyPath: key)
        try config.validate()
    }
}
