import Foundation

/// A parsed JSON document, kept as a tree so that request bodies can be checked field by
/// field and every error can name the field at fault (`fixes[3].latitude`).
///
/// Numbers are held as `Double`; objects keep no key order (the server never depends on it).
public enum ServerJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ServerJSON])
    case object([String: ServerJSON])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([ServerJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: ServerJSON].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Parses `data`; a syntax error becomes a ``Problem`` naming the body.
    package static func parse(_ data: Data) throws(Problem) -> ServerJSON {
        do { return try JSONDecoder().decode(ServerJSON.self, from: data) } catch {
            throw Problem.badRequest(field: "body", detail: "body is not valid JSON")
        }
    }

    /// The JSON type name, for error messages.
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Serialises to compact JSON bytes (keys sorted, so output is stable).
    package func encoded() -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? enc.encode(self)) ?? Data("null".utf8)
    }
}

/// Typed access to a JSON object, throwing a ``Problem`` that names `path.key` on a missing
/// or mistyped field.
package struct JSONObjectReader {
    package let fields: [String: ServerJSON]
    package let path: String

    package init(_ value: ServerJSON, path: String) throws(Problem) {
        guard case .object(let o) = value else {
            throw Problem.badRequest(field: path.isEmpty ? "body" : path,
                                     detail: "\(path.isEmpty ? "body" : path) must be an object, not \(value.typeName)")
        }
        self.fields = o
        self.path = path
    }

    package func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package func has(_ key: String) -> Bool {
        if let v = fields[key], v != .null { return true }
        return false
    }

    package func number(_ key: String) throws(Problem) -> Double {
        guard let v = fields[key] else { throw Problem.badRequest(field: name(key), detail: "\(name(key)) is required") }
        guard case .number(let d) = v else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) must be a number, not \(v.typeName)")
        }
        return d
    }

    package func optionalNumber(_ key: String) throws(Problem) -> Double? {
        guard has(key) else { return nil }
        return try number(key)
    }

    package func string(_ key: String) throws(Problem) -> String {
        guard let v = fields[key] else { throw Problem.badRequest(field: name(key), detail: "\(name(key)) is required") }
        guard case .string(let s) = v else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) must be a string, not \(v.typeName)")
        }
        return s
    }

    package func optionalString(_ key: String) throws(Problem) -> String? {
        guard has(key) else { return nil }
        return try string(key)
    }

    package func optionalBool(_ key: String) throws(Problem) -> Bool? {
        guard has(key) else { return nil }
        guard case .bool(let b) = fields[key]! else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) must be a boolean, not \(fields[key]!.typeName)")
        }
        return b
    }

    package func array(_ key: String) throws(Problem) -> [ServerJSON] {
        guard let v = fields[key] else { throw Problem.badRequest(field: name(key), detail: "\(name(key)) is required") }
        guard case .array(let a) = v else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) must be an array, not \(v.typeName)")
        }
        return a
    }
}
