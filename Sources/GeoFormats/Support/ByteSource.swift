#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered, forward-only reader of bytes from a file descriptor or an in-memory array.
///
/// The unsafe code of the streaming readers lives here and only here. Invariants:
/// - `storage` holds `capacity` bytes; the valid, unconsumed bytes are `storage[start..<end]`.
/// - a line returned by ``nextLine()`` points into `storage` and is valid only until the
///   next call on this source (the buffer may be compacted or grown by a refill).
/// - memory is bounded by the longest line (capped at ``maximumLineLength``) plus one chunk.
/// - a source is used by one thread at a time and never re-entered (no callbacks), so the
///   hot fields skip the runtime exclusivity checks (`@exclusivity(unchecked)`), which
///   otherwise cost more than the byte handling itself in the per-byte XML loop.
final class ByteSource {
    /// Bytes read from the descriptor per `read(2)` call.
    static let chunkSize = 1 << 20
    /// The longest line accepted; longer lines are reported as an error instead of growing
    /// the buffer without bound.
    static let maximumLineLength = 16 << 20

    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    private var fd: Int32
    private let ownsDescriptor: Bool
    @exclusivity(unchecked) private(set) var atEOF = false
    /// Bytes read from the descriptor (or given in memory) so far, for progress reports.
    @exclusivity(unchecked) private(set) var bytesRead = 0
    /// A read error, if one stopped the stream (errno text).
    private(set) var readError: String?
    /// The 1-based number of the line most recently returned by ``nextLine()``,
    /// or the line of the byte most recently returned by ``next()`` (byte mode).
    @exclusivity(unchecked) private(set) var lineNumber = 0
    /// 1-based column of the byte most recently returned by ``next()``.
    @exclusivity(unchecked) private(set) var column = 0

    /// Reads from an open descriptor; closes it on deinit if `ownsDescriptor`.
    init(fileDescriptor: Int32, ownsDescriptor: Bool) {
        capacity = ByteSource.chunkSize * 2
        storage = .allocate(capacity: capacity)
        fd = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
    }

    /// Opens the file at `path` for reading; the failure is the `strerror` text.
    static func open(path: String) -> Result<ByteSource, OpenError> {
        let fd = systemOpen(path, O_RDONLY)
        guard fd >= 0 else { return .failure(OpenError(message: "\(path): \(String(cString: strerror(errno)))")) }
        return .success(ByteSource(fileDescriptor: fd, ownsDescriptor: true))
    }

    /// Why a file could not be opened.
    struct OpenError: Error { var message: String }

    /// Reads from memory.
    init(bytes: [UInt8]) {
        let capacity = max(bytes.count, 1)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bytes.withUnsafeBufferPointer { buf in
            if let base = buf.baseAddress { storage.update(from: base, count: buf.count) }
        }
        self.capacity = capacity
        self.storage = storage
        end = bytes.count
        bytesRead = bytes.count
        fd = -1
        ownsDescriptor = false
        atEOF = true
    }

    deinit {
        storage.deallocate()
        if ownsDescriptor, fd >= 0 { _ = close(fd) }
    }

    /// Makes room and reads one more chunk. Returns false at end of input.
    private func refill() -> Bool {
        if atEOF { return false }
        if start > 0 {
            let live = end - start
            if live > 0 { (storage).update(from: storage + start, count: live) }
            start = 0
            end = live
        }
        if capacity - end < ByteSource.chunkSize {
            let newCapacity = max(capacity * 2, end + ByteSource.chunkSize)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: storage, count: end)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        while true {
            let n = read(fd, storage + end, min(capacity - end, ByteSource.chunkSize))
            if n > 0 {
                end += n
                bytesRead += n
                return true
            }
            if n == 0 {
                atEOF = true
                return false
            }
            if errno == EINTR { continue }
            readError = String(cString: strerror(errno))
            atEOF = true
            return false
        }
    }

    /// The first non-whitespace bytes (after an optional UTF-8 byte-order mark), without
    /// consuming anything. Used for format detection.
    func peekSignificantByte() -> UInt8? {
        var i = start
        while true {
            while i < end {
                let b = storage[i]
                if b == 0xEF, i + 2 < end, storage[i + 1] == 0xBB, storage[i + 2] == 0xBF {
                    i += 3
                    continue
                }
                if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                    i += 1
                    continue
                }
                return b
            }
            let offset = i - start
            if !refill() { return nil }
            i = start + offset
        }
    }

    /// Skips a UTF-8 byte-order mark at the very start of input, if present.
    func skipByteOrderMark() {
        while end - start < 3, refill() {}
        if end - start >= 3, storage[start] == 0xEF, storage[start + 1] == 0xBB, storage[start + 2] == 0xBF {
            start += 3
        }
    }

    /// The outcome of ``nextLine()``.
    enum Line {
        case line(UnsafeBufferPointer<UInt8>)
        case tooLong
        case end
    }

    /// The next line without its terminator (`\n` or `\r\n`). A final line without a
    /// terminator is returned too. The buffer is valid until the next call.
    func nextLine() -> Line {
        var scanFrom = start
        while true {
            if scanFrom < end,
                let hit = memchr(storage + scanFrom, 0x0A, end - scanFrom)
            {
                let nl = storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if nl - start > ByteSource.maximumLineLength {
                    start = nl + 1
                    lineNumber += 1
                    return .tooLong
                }
                var lineEnd = nl
                if lineEnd > start, storage[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let line = UnsafeBufferPointer(start: storage + start, count: lineEnd - start)
                start = nl + 1
                lineNumber += 1
                return .line(line)
            }
            if end - start > ByteSource.maximumLineLength {
                // Discard up to the next newline so that reading can go on.
                lineNumber += 1
                start = end
                while refill() {
                    if let hit = memchr(storage + start, 0x0A, end - start) {
                        start = storage.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                        return .tooLong
                    }
                    start = end
                }
                return .tooLong
            }
            let scanned = end - start
            if !refill() {
                if end > start {
                    var lineEnd = end
                    if storage[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                    let line = UnsafeBufferPointer(start: storage + start, count: lineEnd - start)
                    start = end
                    lineNumber += 1
                    return .line(line)
                }
                return .end
            }
            scanFrom = start + scanned
        }
    }

    // MARK: Byte mode (for XML)

    @exclusivity(unchecked) private var pendingNewline = true

    /// The next byte, tracking line and column; nil at end of input.
    @inline(__always)
    func next() -> UInt8? {
        if start == end, !refill() { return nil }
        let b = storage[start]
        start += 1
        if pendingNewline {
            lineNumber += 1
            column = 0
            pendingNewline = false
        }
        column += 1
        if b == 0x0A { pendingNewline = true }
        return b
    }

    /// The next byte without consuming it.
    @inline(__always)
    func peek() -> UInt8? {
        if start == end, !refill() { return nil }
        return storage[start]
    }

    /// All remaining bytes (for whole-document formats such as GeoJSON).
    func readAll() -> [UInt8] {
        while refill() {}
        let out = Array(UnsafeBufferPointer(start: storage + start, count: end - start))
        start = end
        return out
    }
}

/// `open(2)`, named so that it does not clash with `ByteSource.open`.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}
