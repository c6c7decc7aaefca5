/// Serialises ``JSONValue`` as compact JSON text (RFC 8259), keys sorted.
enum JSONWriter {
    static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): writeNumber(n, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                write(v, to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, key) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                writeString(key, to: &out)
                out += ":"
                write(o[key]!, to: &out)
            }
            out += "}"
        }
    }

    /// Integral values below 2^53 print without a fraction; non-finite values (not JSON)
    /// print as `null`; others use Swift's shortest round-trip form.
    static func writeNumber(_ n: Double, to out: inout String) {
        if !n.isFinite {
            out += "null"
            return
        }
        if n == n.rounded(), abs(n) < 9_007_199_254_740_992 {
            if n == 0 {
                out += "0"
                return
            }
            out += String(Int64(n))
            return
        }
        out += n.description
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
