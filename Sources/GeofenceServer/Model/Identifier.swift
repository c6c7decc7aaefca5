import Foundation

/// The one definition of a valid identifier: region, device and webhook ids wherever they
/// appear (URL paths, request bodies, bulk imports, query parameters) and tenant names.
///
/// A valid identifier is 1 to ``maximumLength`` Unicode scalars of printable text: any
/// character but the control characters (U+0000–U+001F, U+007F–U+009F); lone surrogates
/// cannot occur (the JSON reader refuses them and a Swift string cannot hold one). Spaces,
/// `/`, `%`, non-Latin scripts and emoji are allowed — in a URL path they are sent
/// percent-encoded and decoded here (``fromPath(_:field:)``), so `my region` is
/// `/v1/regions/my%20region`. The length is counted in scalars, as JSON Schema's
/// `maxLength` counts it, so the OpenAPI document states the same rule (``pattern``).
package enum Identifier {
    /// The most Unicode scalars an identifier holds (at most 1,024 UTF-8 bytes).
    package static let maximumLength = 256

    /// The rule as a JSON Schema `pattern` (ECMA-262): no control character. (Surrogates need
    /// no clause: a lone one is malformed JSON text, refused before any schema applies.)
    package static let pattern = #"^[^\u0000-\u001F\u007F-\u009F]+$"#

    /// Why `s` is not a valid identifier, or `nil` when it is.
    package static func flaw(_ s: String) -> String? {
        if s.isEmpty { return "is empty" }
        var count = 0
        for u in s.unicodeScalars {
            count += 1
            if count > maximumLength { return "is longer than \(maximumLength) characters" }
            if isControl(u) {
                return
                    "contains the control character U+\(String(u.value, radix: 16, uppercase: true).leftPadded(to: 4))"
            }
        }
        return nil
    }

    /// `s` when valid; otherwise a 400 problem naming `field`.
    @discardableResult
    package static func check(_ s: String, field: String) throws(Problem) -> String {
        if let why = flaw(s) { throw Problem.badRequest(field: field, detail: "\(field) \(why)") }
        return s
    }

    /// A path segment percent-decoded (`my%20region` → `my region`, `%2F` → `/`) and checked;
    /// a malformed escape or bytes that are not UTF-8 are a 400 problem naming `field`.
    package static func fromPath(_ raw: Substring, field: String) throws(Problem) -> String {
        guard let decoded = String(raw).removingPercentEncoding else {
            throw Problem.badRequest(
                field: field, detail: "\(field) \"\(raw)\" has a malformed percent-escape or is not UTF-8")
        }
        return try check(decoded, field: field)
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
