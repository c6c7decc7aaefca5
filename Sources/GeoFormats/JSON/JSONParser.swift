import Geodesy

/// A strict RFC 8259 JSON parser over bytes that reports line and column of any error.
///
/// Recursion depth is capped (``maximumDepth``) so that hostile input (`[[[[…`) cannot
/// overflow the stack. Duplicate object keys: the last one wins. Invalid UTF-8 inside
/// strings is an error, never repaired.
struct JSONParser {
    /// A syntax error at a byte offset; ``location(in:)`` turns it into line and column.
    struct SyntaxError: Error, Equatable {
        var offset: Int
        var message: String
    }

    static let maximumDepth = 128

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses a whole document (surrounding whitespace allowed).
    static func parse(_ data: [UInt8]) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = data.withUnsafeBufferPointer { buf in
            var p = JSONParser(buf)
            do {
                p.skipWhitespace()
                if p.i == buf.count { throw SyntaxError(offset: 0, message: "empty document") }
                let v = try p.value()
                p.skipWhitespace()
                if p.i != buf.count { throw SyntaxError(offset: p.i, message: "unexpected data after the JSON value") }
                return .success(v)
            } catch let e as SyntaxError {
                return .failure(e)
            } catch {
                return .failure(SyntaxError(offset: p.i, message: "\(error)"))
            }
        }
        return try result.get()
    }

    /// 1-based line and column (in bytes) of `offset` in `data`.
    static func location(of offset: Int, in data: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for k in 0..<min(offset, data.count) where data[k] == 0x0A {
            line += 1
            lineStart = k + 1
        }
        return (line, offset - lineStart + 1)
    }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { break }
        }
    }

    private func fail(_ message: String, at offset: Int? = nil) -> SyntaxError {
        SyntaxError(offset: offset ?? i, message: message)
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default:
            let c = bytes[i]
            let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
            throw fail("unexpected \(shown)")
        }
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let start = i
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for b in w {
            guard i < bytes.count, bytes[i] == b else { throw fail("invalid literal (expected \(word))", at: start) }
            i += 1
        }
    }

    private mutating func number() throws(SyntaxError) -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else {
            throw fail("invalid number", at: start)
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            if i == f { throw fail("invalid number: no digits after '.'", at: start) }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let f = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            if i == f { throw fail("invalid number: no digits in the exponent", at: start) }
        }
        guard let v = NumberParsing.parseDouble(UnsafeBufferPointer(rebasing: bytes[start..<i])) else {
            throw fail("invalid number", at: start)
        }
        return v
    }

    private static func hex(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: UInt32(b - 0x30)
        case 0x41...0x46: UInt32(b - 0x41 + 10)
        case 0x61...0x66: UInt32(b - 0x61 + 10)
        default: nil
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let d = JSONParser.hex(bytes[i + k]) else { throw fail("invalid \\u escape") }
            v = v << 4 | d
        }
        i += 4
        return v
    }

    private mutating func string() throws(SyntaxError) -> String {
        let open = i
        i += 1
        var out: [UInt8] = []
        var runStart = i
        // The OR of every raw byte: below 0x80, the string is ASCII and needs no UTF-8 check.
        var high: UInt8 = 0
        while true {
            guard i < bytes.count else { throw fail("unterminated string", at: open) }
            let b = bytes[i]
            high |= b
            if b == UInt8(ascii: "\"") {
                // Invalid UTF-8 is refused, never repaired to U+FFFD: a repaired identifier would
                // silently name something the sender did not write. ASCII (every key, most
                // values) takes the fast decoding path, which cannot meet invalid UTF-8.
                if out.isEmpty {
                    let raw = UnsafeBufferPointer(rebasing: bytes[runStart..<i])
                    i += 1
                    if high < 0x80 { return String(decoding: raw, as: UTF8.self) }
                    guard let s = strictUTF8String(raw) else {
                        throw fail("string is not valid UTF-8", at: open)
                    }
                    return s
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                i += 1
                if high < 0x80 { return String(decoding: out, as: UTF8.self) }
                guard let s = strictUTF8String(out) else {
                    throw fail("string is not valid UTF-8", at: open)
                }
                return s
            }
            if b < 0x20 { throw fail("control character in a string") }
            if b != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            i += 1
            guard i < bytes.count else { throw fail("unterminated string", at: open) }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                // A surrogate must come as a high-low pair; a lone one is refused (it has no
                // Unicode scalar, and replacing it with U+FFFD would change the text).
                let escape = i - 2
                var code = try hex4()
                if (0xDC00..<0xE000).contains(code) { throw fail("lone low surrogate in a \\u escape", at: escape) }
                if (0xD800..<0xDC00).contains(code) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate in a \\u escape", at: escape)
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw fail("lone high surrogate in a \\u escape", at: escape)
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape", at: escape) }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: i - 2)
            }
            runStart = i
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw fail("nesting deeper than \(JSONParser.maximumDepth)") }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter()
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value())
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                depth -= 1
                return .array(items)
            }
            throw fail("expected ',' or ']' in an array")
        }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        try enter()
        i += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of input in an object") }
            guard bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key in an object") }
            let key = try string()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
            i += 1
            skipWhitespace()
            members[key] = try value()
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                depth -= 1
                return .object(members)
            }
            throw fail("expected ',' or '}' in an object")
        }
    }
}
