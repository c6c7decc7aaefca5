import Foundation

/// The one definition of a valid identifier: region, device and webhook ids wherever they
/// appear (URL paths, request bodies, bulk imports, query parameters, the tracking apps'
/// messages), tenant names and the device bindings of API keys.
///
/// Every identifier is normalized to Unicode NFC where it enters the server (``check(_:field:)``,
/// ``fromURL(_:field:)``, ``normalized(_:)``), so two spellings that
/// Unicode calls canonically equivalent — `é` (U+00E9) and `e` + U+0301 — are one id
/// everywhere: in the engine (Swift compares strings by canonical equivalence), in both stores
/// (which compare bytes) and in every answer, which spells it in NFC. Stores written before
/// the rule are normalized once by a migration (docs/server.md, "Identifiers").
///
/// A valid identifier is, after normalization, 1 to ``maximumLength`` Unicode scalars of
/// printable text: any character but the control characters (U+0000–U+001F, U+007F–U+009F);
/// lone surrogates cannot occur (the JSON reader and the percent-decoders refuse them and a
/// Swift string cannot hold one). Spaces, `/`, `%`, non-Latin scripts and emoji are allowed —
/// in a URL path they are sent percent-encoded and decoded here, so `my region` is
/// `/v1/regions/my%20region`. The length is counted in scalars, as JSON Schema's `maxLength`
/// counts it, so the OpenAPI document states the same rule (``pattern``).
package enum Identifier {
    /// The most Unicode scalars an identifier holds in NFC (at most 1,024 UTF-8 bytes).
    package static let maximumLength = 256

    /// The rule as a JSON Schema `pattern` (ECMA-262): no control character. (Surrogates need
    /// no clause: a lone one is malformed JSON text, refused before any schema applies.)
    package static let pattern = #"^[^\u0000-\u001F\u007F-\u009F]+$"#

    /// `s` in Unicode Normalization Form C: what every identifier is compared and stored as.
    ///
    /// Text below U+0300 (ASCII, Latin-1, Latin Extended, IPA: every id of most deployments) is
    /// returned as it is, without allocating — see ``isNFCWithoutLookup(_:)``.
    package static func normalized(_ s: String) -> String {
        isNFCWithoutLookup(s) ? s : s.precomposedStringWithCanonicalMapping
    }

    /// Whether `s` holds only scalars below U+0300, which makes it NFC: the first scalar that
    /// composes with a preceding one, or decomposes, is U+0300 (every scalar below it has
    /// `NFC_Quick_Check=Yes` and combining class 0). In UTF-8 those are exactly the strings
    /// whose every byte is below 0xCC (U+0300 is `CC 80`; continuation bytes are 0x80–0xBF),
    /// so the test is one pass over the bytes.
    package static func isNFCWithoutLookup(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable(isNFCWithoutLookup(utf8:)) ?? s.utf8.allSatisfy { $0 < 0xCC }
    }

    /// ``isNFCWithoutLookup(_:)`` of UTF-8 text: the largest byte, taken without an early exit
    /// so that the loop vectorizes (ids are short; the migration's documents are read whole
    /// anyway).
    package static func isNFCWithoutLookup(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var largest: UInt8 = 0
        for b in bytes { largest = max(largest, b) }
        return largest < 0xCC
    }

    /// Why `s`, an identifier already ``normalized(_:)``, is not valid, or `nil` when it is.
    package static func flaw(_ s: String) -> String? {
        if s.isEmpty { return "is empty" }
        var count = 0
        for u in s.unicodeScalars {
            count += 1
            if count > maximumLength { return "is longer than \(maximumLength) characters (in Unicode NFC)" }
            if isControl(u) {
                return
                    "contains the control character U+\(String(u.value, radix: 16, uppercase: true).leftPadded(to: 4))"
            }
        }
        return nil
    }

    /// `s` normalized to NFC when valid; otherwise a 400 problem naming `field`.
    package static func check(_ s: String, field: String) throws(Problem) -> String {
        let id = normalized(s)
        if let why = flaw(id) { throw Problem.badRequest(field: field, detail: "\(field) \(why)") }
        return id
    }

    /// A path segment or a query parameter's raw value percent-decoded (`my%20region` →
    /// `my region`, `%2F` → `/`; `+` stays a plus: ids such as `=1+1` exist), normalized and
    /// checked; a malformed escape or bytes that are not UTF-8 (an encoded lone surrogate
    /// too) are a 400 problem naming `field`.
    package static func fromURL(_ raw: Substring, field: String) throws(Problem) -> String {
        try check(try percentDecoded(raw, field: field), field: field)
    }

    /// `raw` percent-decoded, or a 400 problem naming `field` when an escape is malformed or
    /// the bytes are not UTF-8.
    package static func percentDecoded(_ raw: Substring, field: String) throws(Problem) -> String {
        guard let decoded = String(raw).removingPercentEncoding else {
            throw Problem.badRequest(
                field: field,
                detail: "\(field) \"\(raw.prefix(64))\" has a malformed percent-escape or is not UTF-8")
        }
        return decoded
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
