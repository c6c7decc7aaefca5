import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `geofence` executable run as a child process — the real `geofence serve`,
/// killed and restarted by crash tests.
///
/// The executable is found, in order: `GEOFENCE_EXECUTABLE` in the environment; next to the
/// test bundle (`.build/debug/geofence` when the bundle is `.build/debug/…xctest`); in
/// `.build/{debug,release}` of the package the tests run from.
final class ChildServer: @unchecked Sendable {
    let process: SpawnedProcess
    let port: Int
    private let output: OutputCollector
    /// The reading end of the child's output pipe (its readability handler holds it weakly).
    private let reader: FileHandle

    /// Where the `geofence` executable is, or a message saying where it was looked for.
    static func executable() throws -> URL {
        var tried: [String] = []
        if let env = ProcessInfo.processInfo.environment["GEOFENCE_EXECUTABLE"], !env.isEmpty {
            if FileManager.default.isExecutableFile(atPath: env) { return URL(fileURLWithPath: env) }
            tried.append(env)
        }
        var dirs: [URL] = []
        // The test bundle (or the xctest runner's argument) lives in the build products directory.
        for arg in CommandLine.arguments.prefix(3) where arg.contains(".xctest") || arg.contains("PackageTests") {
            var url = URL(fileURLWithPath: arg)
            while url.pathComponents.count > 1, !url.lastPathComponent.hasSuffix(".xctest") {
                url.deleteLastPathComponent()
            }
            if url.lastPathComponent.hasSuffix(".xctest") { dirs.append(url.deletingLastPathComponent()) }
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            dirs.append(URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent())
        }
        dirs.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        // From this source file up to the package root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        dirs.append(root.appendingPathComponent(".build/debug"))
        dirs.append(root.appendingPathComponent(".build/release"))
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        dirs.append(cwd.appendingPathComponent(".build/debug"))
        for dir in dirs {
            let candidate = dir.appendingPathComponent("geofence")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            tried.append(candidate.path)
        }
        throw ChildServerError.noExecutable(tried: tried)
    }

    /// Runs `geofence ARGS` to completion; returns its standard output (throws on a non-zero exit).
    ///
    /// The wait runs on a Dispatch thread, never on one of the concurrency pool's threads: the
    /// child may wait for this process (PostgreSQL's migration lock, held by a store a test opened
    /// in-process), and a pool with its threads blocked in such waits can never resume the task
    /// that would release the lock. Two `create-key` children once deadlocked a test run so.
    static func runToCompletion(_ arguments: [String]) async throws -> String {
        let executable = try executable()
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(executable, arguments) })
            }
        }
    }

    /// Runs the child and waits for it, on the calling thread. Standard error goes to a file,
    /// so a child that writes much of it cannot fill a pipe nobody reads.
    private static func runBlocking(_ executable: URL, _ arguments: [String]) throws -> String {
        let out = try ChildPipe()
        let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-child-\(UUID()).err").path
        let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard err >= 0 else { throw SpawnError(call: "open \(errPath)", code: errno) }
        defer { unlink(errPath) }
        let child: SpawnedProcess
        do {
            defer {
                close(out.writing)
                close(err)
            }
            child = try SpawnedProcess(
                executable: executable.path, arguments: arguments,
                environment: ProcessInfo.processInfo.environment, standardOutput: out.writing, standardError: err)
        } catch {
            close(out.reading)
            throw error
        }
        let data = FileHandle(fileDescriptor: out.reading, closeOnDealloc: true).readDataToEndOfFile()
        let status = child.waitUntilExit()
        guard status == 0 else {
            throw ChildServerError.failed(
                arguments: arguments, status: status,
                stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self)
    }

    private init(process: SpawnedProcess, port: Int, output: OutputCollector, reader: FileHandle) {
        self.process = process
        self.reader = reader
        self.port = port
        self.output = output
    }

    /// Starts `geofence serve --port 0 ARGS` and waits (up to `timeout`) for its "listening"
    /// log line, which carries the bound port. `environment` is added to this process's (whose
    /// `GEOFENCE_FAILPOINTS`, if any, is not passed on: a child stalls only where asked).
    static func start(
        _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) async throws -> ChildServer {
        var inherited = ProcessInfo.processInfo.environment
        inherited["GEOFENCE_FAILPOINTS"] = nil
        let output = try ChildPipe()
        let p: SpawnedProcess
        do {
            defer { close(output.writing) }
            p = try SpawnedProcess(
                executable: try executable().path, arguments: ["serve", "--port", "0"] + arguments,
                environment: inherited.merging(environment) { $1 },
                standardOutput: output.writing, standardError: output.writing)
        } catch {
            close(output.reading)
            throw error
        }
        let collector = OutputCollector()
        let reader = FileHandle(fileDescriptor: output.reading, closeOnDealloc: true)
        reader.readabilityHandler = { h in
            let d = h.availableData
            if d.isEmpty {
                h.readabilityHandler = nil
                collector.finish()
            } else {
                collector.append(d)
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if let port = collector.listeningPort() {
                return ChildServer(process: p, port: port, output: collector, reader: reader)
            }
            if !p.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if p.isRunning { p.send(SIGTERM) }
        try await collector.waitForEnd(timeout: .seconds(5))
        throw ChildServerError.didNotStart(log: collector.text)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var log: String { output.text }

    /// Waits until the output contains `text` (true), the process exits, or `timeout` passes (false).
    func waitForOutput(_ text: String, timeout: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if output.text.contains(text) { return true }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        if !process.isRunning { try await output.waitForEnd(timeout: .seconds(5)) }
        return output.text.contains(text)
    }

    /// SIGKILL: no shutdown code runs, as in a power cut of the process. (The wait is only for
    /// the kernel to end the process, which a SIGKILL cannot be held up by: short enough to
    /// block the calling thread, and `defer` blocks need a synchronous call.)
    func kill() {
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    func terminate() async throws -> Int32 {
        process.send(SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while process.isRunning, clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill() }
        return process.waitUntilExit()
    }
}

enum ChildServerError: Error, CustomStringConvertible {
    case noExecutable(tried: [String])
    case failed(arguments: [String], status: Int32, stderr: String)
    case didNotStart(log: String)

    var description: String {
        switch self {
        case .noExecutable(let tried):
            "no built geofence executable (run `swift build --product geofence` or set GEOFENCE_EXECUTABLE); tried \(tried.joined(separator: ", "))"
        case .failed(let arguments, let status, let stderr):
            "geofence \(arguments.joined(separator: " ")) exited with \(status): \(stderr)"
        case .didNotStart(let log): "geofence serve did not report a listening port; its output:\n\(log.suffix(2_000))"
        }
    }
}

/// Collects a child's output from the pipe's reader thread.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    func append(_ d: Data) { lock.withLock { data.append(d) } }
    /// The pipe reached its end: the child and everything it started have exited.
    func finish() { lock.withLock { ended = true } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// Waits (up to `timeout`) until the pipe's end has been read. A child that has exited may
    /// still have output in the pipe: the reader thread and the exit are noticed independently,
    /// so its last lines (a start-up error) could otherwise be missed.
    func waitForEnd(timeout: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !lock.withLock({ ended }), clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// The port of the first `listening` log line (`port=NNNN` metadata).
    func listeningPort() -> Int? {
        for line in text.split(separator: "\n") where line.contains("listening") {
            guard let r = line.range(of: "port=") else { continue }
            let digits = line[r.upperBound...].prefix { $0.isNumber }
            if let p = Int(digits), p > 0 { return p }
        }
        return nil
    }
}
