/// Where a GeoJSON FeatureCollection's top-level `features` array and each of its elements
/// lie in the text, found by a scan of the JSON's structure (strings, nesting, separators)
/// that checks nothing else: ``GeoJSONRegionReader/read(bytes:threads:)`` parses every piece
/// it names strictly, and reads the whole input the ordinary way when the scan finds nothing.
///
/// ```swift
/// let split = bytes.withUnsafeBufferPointer { FeatureArraySplit(scanning: $0, from: 0) }
/// split?.elements.count   // the number of features
/// ```
///
/// Nil for anything but one top-level object with exactly one `features` key (spelled
/// without escapes) whose value is an array, followed by nothing but whitespace. O(n).
struct FeatureArraySplit {
    /// Offsets of the array's `[` and `]`.
    var open: Int
    var close: Int
    /// Each element's bytes, in order.
    var elements: [Range<Int>]

    init?(scanning bytes: UnsafeBufferPointer<UInt8>, from start: Int) {
        var s = Scanner(bytes: bytes, i: start)
        var found: FeatureArraySplit?
        s.skipSpace()
        guard s.take(UInt8(ascii: "{")) else { return nil }
        repeat {
            s.skipSpace()
            let keyStart = s.i + 1
            guard s.at(UInt8(ascii: "\"")), s.skipString() else { return nil }
            let key = UnsafeBufferPointer(rebasing: bytes[keyStart..<s.i - 1])
            s.skipSpace()
            guard s.take(UInt8(ascii: ":")) else { return nil }
            s.skipSpace()
            if key.elementsEqual("features".utf8) {
                guard found == nil, let array = s.array() else { return nil }
                found = array
            } else {
                guard s.skipValue() else { return nil }
            }
            s.skipSpace()
        } while s.take(UInt8(ascii: ","))
        guard s.take(UInt8(ascii: "}")) else { return nil }
        s.skipSpace()
        guard s.i == bytes.count, let found else { return nil }
        self = found
    }

    private init(open: Int, close: Int, elements: [Range<Int>]) {
        self.open = open
        self.close = close
        self.elements = elements
    }

    /// A cursor over the bytes; every method stops at the end of the input.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i: Int

        func at(_ byte: UInt8) -> Bool { i < bytes.count && bytes[i] == byte }

        /// Moves past `byte` if it is next.
        mutating func take(_ byte: UInt8) -> Bool {
            guard at(byte) else { return false }
            i += 1
            return true
        }

        mutating func skipSpace() {
            while i < bytes.count, Scanner.isSpace(bytes[i]) { i += 1 }
        }

        static func isSpace(_ b: UInt8) -> Bool {
            b == UInt8(ascii: " ") || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "\t")
        }

        /// Whether `b` ends a scalar (a number, `true`, `false`, `null`).
        static func endsScalar(_ b: UInt8) -> Bool {
            b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || isSpace(b)
        }

        /// Moves past the string whose opening quote is at `i`; false when it never ends.
        mutating func skipString() -> Bool {
            i += 1
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\\"): i += 2 // a backslash and the byte it escapes
                case UInt8(ascii: "\""):
                    i += 1
                    return true
                default: i += 1
                }
            }
            return false
        }

        /// Moves past one value: a string, a nested object or array (to its closing bracket,
        /// counting brackets outside strings), or a scalar (to the next delimiter).
        mutating func skipValue() -> Bool {
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while i < bytes.count {
                    switch bytes[i] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            return true
                        }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                let from = i
                while i < bytes.count, !Scanner.endsScalar(bytes[i]) {
                    i += 1
                }
                return i > from
            }
        }

        /// Moves past the array at `i`, noting its elements.
        mutating func array() -> FeatureArraySplit? {
            let open = i
            guard take(UInt8(ascii: "[")) else { return nil }
            var elements: [Range<Int>] = []
            skipSpace()
            if !at(UInt8(ascii: "]")) {
                repeat {
                    skipSpace()
                    let start = i
                    guard skipValue() else { return nil }
                    elements.append(start..<i)
                    skipSpace()
                } while take(UInt8(ascii: ","))
            }
            let close = i
            guard take(UInt8(ascii: "]")) else { return nil }
            return FeatureArraySplit(open: open, close: close, elements: elements)
        }
    }
}
