/// UTF-8 bytes as a `String`, or `nil` when they are not valid UTF-8 (never repaired to U+FFFD).
///
/// The package's readers refuse invalid UTF-8 rather than repair it: a repaired identifier would
/// silently name something the sender did not write.
///
/// `String(validating:as:)` does this in one pass but is iOS 18 / macOS 15, newer than the
/// package's platforms (`Swift.swiftinterface`: `@available(macOS 15.0, iOS 18.0, …)`). Decoding
/// repairs each invalid sequence to U+FFFD (`EF BF BD`), which can never equal the bytes it
/// replaces, so the decoded string has the input's bytes exactly when the input is valid. Cost:
/// one decoding pass and one comparison; callers skip it for ASCII.
package func strictUTF8String<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
    let decoded = String(decoding: bytes, as: UTF8.self)
    return decoded.utf8.elementsEqual(bytes) ? decoded : nil
}
