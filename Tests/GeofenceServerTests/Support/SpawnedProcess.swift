import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, in place of Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) finds the highest open descriptor by
/// copying each `/proc/self/fd` entry's whole 256-byte `d_name`, which reads past glibc's
/// buffer when a short entry ends a page: a test run that spawns children while it holds a
/// thousand descriptors died of it with SIGSEGV (fixed upstream in swift-corelibs-foundation
/// 81eb85a). This type spawns directly and closes every descriptor above standard error in
/// the child with glibc's `posix_spawn_file_actions_addclosefrom_np`, so a child never holds
/// another child's pipe open.
final class SpawnedProcess: @unchecked Sendable {
    let processIdentifier: pid_t
    private let exit = NSCondition()
    private var exitStatus: Int32?
    private var someoneWaits = false

    /// Starts `executable` with `arguments` and exactly `environment`; standard input reads
    /// /dev/null, standard output and error go to the given descriptors (which stay open here).
    init(
        executable: String, arguments: [String], environment: [String: String],
        standardOutput: Int32, standardError: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen")
        try check(posix_spawn_file_actions_adddup2(&actions, standardOutput, 1), "adddup2 stdout")
        try check(posix_spawn_file_actions_adddup2(&actions, standardError, 2), "adddup2 stderr")
        try check(closeFrom(&actions, 3), "addclosefrom_np")

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let spawned = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
            (envp + [nil]).withUnsafeBufferPointer { envBuffer in
                posix_spawn(&pid, executable, &actions, nil, argvBuffer.baseAddress!, envBuffer.baseAddress!)
            }
        }
        try check(spawned, "posix_spawn \(executable)")
        processIdentifier = pid
    }

    /// Whether the child has not exited yet (reaps it if it has).
    var isRunning: Bool {
        exit.lock()
        defer { exit.unlock() }
        if exitStatus != nil { return false }
        if someoneWaits { return true }
        var status: Int32 = 0
        guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return true }
        exitStatus = status
        return false
    }

    /// Blocks the calling thread until the child exits; returns its exit code, or 128 plus the
    /// signal that ended it.
    @discardableResult
    func waitUntilExit() -> Int32 {
        exit.lock()
        defer { exit.unlock() }
        while exitStatus == nil {
            if someoneWaits {
                exit.wait()
                continue
            }
            someoneWaits = true
            exit.unlock()
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) == -1, errno == EINTR {}
            exit.lock()
            someoneWaits = false
            exitStatus = status
            exit.broadcast()
        }
        return Self.code(of: exitStatus!)
    }

    /// The exit code (or 128 + signal) once the child has exited; nil while it runs.
    var terminationStatus: Int32? {
        exit.lock()
        defer { exit.unlock() }
        return exitStatus.map(Self.code(of:))
    }

    func send(_ signal: Int32) {
        #if canImport(Glibc)
        _ = Glibc.kill(processIdentifier, signal)
        #elseif canImport(Darwin)
        _ = Darwin.kill(processIdentifier, signal)
        #endif
    }

    /// The status word `waitpid` gives, as a shell states it.
    private static func code(of status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which Swift's Glibc module does not
/// export: looked up by name.
private func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return ENOSYS }
    return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
}

private func check(_ result: Int32, _ what: String) throws {
    guard result == 0 else { throw SpawnError(call: what, code: result) }
}

struct SpawnError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

/// A pipe whose two ends are closed on exec, so that only the child it is handed to (through
/// `dup2`, which clears the flag on the copy) holds its writing end.
struct ChildPipe {
    let reading: Int32
    let writing: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnError(call: "pipe", code: errno) }
        // (Swift's Glibc module has no `pipe2`; a child spawned in between closes them anyway.)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        reading = ends[0]
        writing = ends[1]
    }
}
