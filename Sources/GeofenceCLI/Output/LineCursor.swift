/// Writes one line of output through a pointer, into room reserved for it up front, so that
/// the byte writers append each line to their buffer in one copy. Appending each field to an
/// array instead checked its capacity and uniqueness a dozen times a line: a third of the jsonl
/// writer's time (docs/performance.md).
///
/// Invariant: whoever makes the cursor reserves room for everything written to it (a bound
/// worked out from the line's parts); each write checks it and traps rather than overrun.
struct LineCursor {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        base = room.baseAddress!
        capacity = room.count
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Calls `body` with the room left and moves on by the count it returns (what it wrote).
    @inline(__always)
    mutating func write(_ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        let n = body(UnsafeMutableBufferPointer(start: base + count, count: capacity - count))
        precondition(n >= 0 && n <= capacity - count, "LineCursor overrun")
        count += n
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        precondition(count < capacity, "LineCursor overrun")
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= capacity - count, "LineCursor overrun")
        if let source = bytes.baseAddress { (base + count).update(from: source, count: bytes.count) }
        count += bytes.count
    }

    @inline(__always)
    mutating func put(_ literal: StaticString) {
        put(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Puts a string's UTF-8 bytes.
    @inline(__always)
    mutating func put(text string: String) {
        var string = string
        string.withUTF8 { put($0) }
    }
}

extension Array where Element == UInt8 {
    /// Appends a line of at most `room` bytes written by `body` through a ``LineCursor``.
    @inline(__always)
    mutating func appendLine(room: Int, _ body: (inout LineCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            var line = LineCursor(buffer)
            body(&line)
            append(contentsOf: line.written)
        }
    }
}
