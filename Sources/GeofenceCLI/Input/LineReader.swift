import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line in fixed-size chunks (1 MiB), never holding more than one chunk
/// plus one line. Lines are handed out as byte slices of the internal buffer, valid until the
/// next call. Handles `\n` and `\r\n`.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    /// 1-based number of the line last returned.
    private(set) var lineNumber = 0
    private let chunk: Int

    /// Opens `path` for reading.
    /// - Throws: ``InputError/cannotOpen(path:reason:)``.
    init(path: String, chunkSize: Int = 1 << 20) throws(InputError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .cannotOpen(path: path, reason: "is a directory")
        }
        self.fd = fd
        self.chunk = chunkSize
        self.buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit { close(fd) }

    /// The first bytes of the file (for format detection), without consuming them.
    func peek(_ n: Int) throws(InputError) -> [UInt8] {
        while end - start < n, !eof { try fill() }
        return Array(buffer[start..<min(end, start + n)])
    }

    /// Calls `body` with the next line (without its terminator), or returns `nil` at the end.
    func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        while true {
            let found: Int? = buffer.withUnsafeBufferPointer { b in
                var i = start
                while i < end {
                    if b[i] == 10 { return i }
                    i += 1
                }
                return nil
            }
            if let nl = found {
                var stop = nl
                if stop > start, buffer[stop - 1] == 13 { stop -= 1 }
                lineNumber += 1
                let s = start
                start = nl + 1
                return try buffer.withUnsafeBufferPointer { b in
                    try body(UnsafeBufferPointer(rebasing: b[s..<stop]))
                }
            }
            if eof {
                guard start < end else { return nil }
                var stop = end
                if buffer[stop - 1] == 13 { stop -= 1 }
                lineNumber += 1
                let s = start
                start = end
                return try buffer.withUnsafeBufferPointer { b in
                    try body(UnsafeBufferPointer(rebasing: b[s..<stop]))
                }
            }
            try fill()
        }
    }

    /// Moves unread bytes to the front and reads more; grows the buffer for very long lines.
    private func fill() throws(InputError) {
        if start > 0 {
            let n = end - start
            if n > 0 {
                buffer.withUnsafeMutableBufferPointer { b in
                    _ = memmove(b.baseAddress!, b.baseAddress! + start, n)
                }
            }
            start = 0
            end = n
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        let want = buffer.count - end
        let got = buffer.withUnsafeMutableBufferPointer { b in
            read(fd, b.baseAddress! + end, want)
        }
        if got < 0 { throw .readFailed(reason: String(cString: strerror(errno))) }
        if got == 0 { eof = true } else { end += got }
    }
}
