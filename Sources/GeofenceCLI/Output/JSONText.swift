/// Minimal JSON text helpers for the streaming writers (no Foundation encoder per event).
enum JSONText {
    /// `s` as a JSON string literal, quotes included (RFC 8259 escaping).
    static func string(_ s: String) -> String {
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            // Nothing to escape (identifiers usually): one copy between quotes.
            var out = ""
            out.reserveCapacity(s.utf8.count + 2)
            out += "\""
            out += s
            out += "\""
            return out
        }
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
        return out
    }

    /// A finite number in JSON (shortest round-trip form; integers without ".0").
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return String(v)
    }
}
