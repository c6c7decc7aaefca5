/// Minimal JSON text helpers for the streaming writers (no Foundation encoder per event).
/// Each form has a byte version that appends UTF-8 to a buffer, for writers that build
/// their lines as bytes; the string versions are made from them.
enum JSONText {
    /// `s` as a JSON string literal, quotes included (RFC 8259 escaping).
    static func string(_ s: String) -> String {
        var bytes: [UInt8] = []
        appendString(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``string(_:)``'s text for `s` to `bytes`.
    static func appendString(_ s: String, to bytes: inout [UInt8]) {
        var s = s
        s.withUTF8 { utf8 in
            bytes.append(0x22)
            // Nothing to escape (identifiers usually): one copy between the quotes.
            if !utf8.contains(where: needsEscape) {
                bytes.append(contentsOf: utf8)
            } else {
                // Bytes of a multi-byte character are all ≥ 0x80: copied as they are.
                for b in utf8 {
                    guard needsEscape(b) else {
                        bytes.append(b)
                        continue
                    }
                    bytes.append(0x5C)
                    switch b {
                    case 0x22, 0x5C: bytes.append(b)
                    case 0x0A: bytes.append(UInt8(ascii: "n"))
                    case 0x0D: bytes.append(UInt8(ascii: "r"))
                    case 0x09: bytes.append(UInt8(ascii: "t"))
                    default:
                        let hex: [UInt8] = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
                    }
                }
            }
            bytes.append(0x22)
        }
    }

    @inline(__always)
    private static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    /// A finite number in JSON (shortest round-trip form; integers without ".0").
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return String(v)
    }

    /// Appends ``number(_:)``'s text for `v` to `bytes`.
    static func appendNumber(_ v: Double, to bytes: inout [UInt8]) {
        // Up to 15 bytes (most coordinates) the text is a small string: no allocation.
        var text = number(v)
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
}
