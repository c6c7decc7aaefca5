import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered `TextOutputStream` over a file descriptor (standard output or error). Writes
/// go out with `write(2)` in 64 KiB blocks; call ``flush()`` at the end.
struct FileDescriptorOutput: TextOutputStream {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fileDescriptor: Int32) {
        fd = fileDescriptor
        buffer.reserveCapacity(1 << 16)
    }

    static var standardOutput: FileDescriptorOutput { FileDescriptorOutput(fileDescriptor: 1) }

    mutating func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes UTF-8 `bytes`: a block of 64 KiB or more goes out directly once the buffer is
    /// written, a smaller one through the buffer.
    mutating func write(bytes: UnsafeBufferPointer<UInt8>) {
        if buffer.count + bytes.count < 1 << 16 {
            buffer.append(contentsOf: bytes)
            return
        }
        flush()
        if bytes.count >= 1 << 16 { writeAll(bytes) } else { buffer.append(contentsOf: bytes) }
    }

    /// Writes `event`'s text by `writer` into the buffer as bytes (no string in between).
    mutating func write<W: EventWriter>(_ event: ReportedEvent, with writer: inout W) {
        writer.write(event, into: &buffer)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        buffer.withUnsafeBufferPointer { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// `write(2)` until all of `b` is written (or the descriptor fails).
    private func writeAll(_ b: UnsafeBufferPointer<UInt8>) {
        var done = 0
        while done < b.count {
            let n = systemWrite(fd, b.baseAddress! + done, b.count - done)
            if n <= 0 {
                if errno == EINTR { continue }
                break
            }
            done += n
        }
    }

    /// Flushes and closes the descriptor.
    mutating func close() {
        flush()
        _ = systemClose(fd)
    }
}

/// Terminal checks and unbuffered standard-error text.
enum Terminal {
    static var standardOutputIsTerminal: Bool { isatty(1) == 1 }
    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

    static func printError(_ s: String) {
        var e = FileDescriptorOutput(fileDescriptor: 2)
        e.write(s)
        e.flush()
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
private let systemClose = Glibc.close
#else
private let systemClose = Darwin.close
private let systemWrite = Darwin.write
#endif
