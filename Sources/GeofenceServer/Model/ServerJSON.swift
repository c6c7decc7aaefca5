import Foundation
import GeoFormats

/// A parsed JSON document, kept as a tree so that request bodies can be checked field by
/// field and every error can name the field at fault (`fixes[3].latitude`).
///
/// The same type as GeoFormats' ``JSONValue`` (numbers are `Double`, objects keep no key
/// order); the server adds parsing from a request body and compact encoding.
public typealias ServerJSON = JSONValue

extension JSONValue {
    /// Parses `data` with GeoFormats' byte parser; a syntax error becomes a ``Problem``
    /// naming the body and the line and column.
    package static func parse(_ data: Data) throws(Problem) -> JSONValue {
        do { return try JSONValue(parsing: [UInt8](data)) } catch {
            if case .invalidJSON(let line, let column, let reason) = error {
                throw Problem.badRequest(
                    field: "body", detail: "body is not valid JSON (line \(line), column \(column): \(reason))")
            }
            throw Problem.badRequest(field: "body", detail: "body is not valid JSON")
        }
    }

    /// Serialises to compact JSON bytes (keys sorted, so output is stable).
    package func encoded() -> Data { Data(description.utf8) }
}

/// Typed access to a JSON object, throwing a ``Problem`` that names `path.key` on a missing
/// or mistyped field.
package struct JSONObjectReader {
    package let fields: [String: ServerJSON]
    package let path: String

    package init(_ value: ServerJSON, path: String) throws(Problem) {
        guard case .object(let o) = value else {
            throw Problem.badRequest(
                field: path.isEmpty ? "body" : path,
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
        guard let v = fields[key] else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) is required")
        }
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
        guard let v = fields[key] else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) is required")
        }
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
            throw Problem.badRequest(
                field: name(key), detail: "\(name(key)) must be a boolean, not \(fields[key]!.typeName)")
        }
        return b
    }

    package func array(_ key: String) throws(Problem) -> [ServerJSON] {
        guard let v = fields[key] else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) is required")
        }
        guard case .array(let a) = v else {
            throw Problem.badRequest(field: name(key), detail: "\(name(key)) must be an array, not \(v.typeName)")
        }
        return a
    }
}
