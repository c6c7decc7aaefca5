/// Minimal JSON text helpers for the streaming writers (no Foundation encoder per event).
/// Each form has a byte version that writes UTF-8 through a ``LineCursor``, for writers that
/// build their lines as bytes; the string versions are made from them.
enum JSONText {
    /// `s` as a JSON string literal, quotes included (RFC 8259 escaping).
    static func string(_ s: String) -> String {
        var bytes: [UInt8] = []
        appendString(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``string(_:)``'s text for `s` to `bytes`.
    static func appendString(_ s: String, to bytes: inout [UInt8]) {
        bytes.appendLine(room: maximumStringBytes(s)) { writeString(s, to: &$0) }
    }

    /// The most bytes ``writeString(_:to:)`` writes for `s`: quotes, and six bytes
    /// (`\u001f`) for each byte that needs escaping.
    static func maximumStringBytes(_ s: String) -> Int { 2 + 6 * s.utf8.count }

    /// Writes ``string(_:)``'s text for `s` (at most ``maximumStringBytes(_:)`` bytes).
    @inline(__always)
    static func writeString(_ s: String, to line: inout LineCursor) {
        var s = s
        s.withUTF8 { utf8 in
            line.put(0x22)
            // Nothing to escape (identifiers usually): one copy between the quotes.
            if !utf8.contains(where: needsEscape) {
                line.put(utf8)
            } else {
                // Bytes of a multi-byte character are all ≥ 0x80: copied as they are.
                for b in utf8 {
                    guard needsEscape(b) else {
                        line.put(b)
                        continue
                    }
                    line.put(0x5C)
                    switch b {
                    case 0x22, 0x5C: line.put(b)
                    case 0x0A: line.put(UInt8(ascii: "n"))
                    case 0x0D: line.put(UInt8(ascii: "r"))
                    case 0x09: line.put(UInt8(ascii: "t"))
                    default:
                        line.put("u00")
                        line.put(hexDigit(b >> 4))
                        line.put(hexDigit(b & 15))
                    }
                }
            }
            line.put(0x22)
        }
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }

    @inline(__always)
    private static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    /// A finite number in JSON (shortest round-trip form; integers without ".0").
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return String(v)
    }

    /// The most bytes ``number(_:)`` gives (`-2.2250738585072014e-308` has 24).
    static let maximumNumberBytes = 32

    /// Writes ``number(_:)``'s text for finite `v` (at most ``maximumNumberBytes`` bytes).
    @inline(__always)
    static func writeNumber(_ v: Double, to line: inout LineCursor) {
        // Up to 15 bytes (most coordinates) the text is a small string: no allocation.
        line.put(text: number(v))
    }
}
