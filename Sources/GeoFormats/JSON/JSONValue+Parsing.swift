extension JSONValue {
    /// Parses one JSON document (RFC 8259, strict; nesting depth at most 128) from UTF-8 bytes.
    ///
    /// ```swift
    /// let v = try JSONValue(parsing: Array(#"{"id": "bridge-1", "radius": 150}"#.utf8))
    /// v["radius"]?.doubleValue   // 150
    /// ```
    /// A single pass over the bytes, O(n); much faster than going through `JSONDecoder`.
    /// - Throws: ``GeoJSONError/invalidJSON(line:column:reason:)`` with the 1-based line and
    ///   column of the first syntax error, or ``GeoJSONError/emptyInput``.
    public init(parsing bytes: [UInt8]) throws(GeoJSONError) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { throw .emptyInput }
        do {
            self = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = JSONParser.location(of: error.offset, in: bytes)
            throw .invalidJSON(line: line, column: column, reason: error.message)
        }
    }
}
