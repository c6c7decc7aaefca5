import Testing

@testable import Geodesy

@Suite("strict UTF-8: valid bytes give their string, invalid ones nil, never a repair")
struct StrictUTF8Tests {
    @Test("valid text, the replacement character written as such among it")
    func validText() {
        for text in ["", "shop-coffee", "Zürich Hauptbahnhof", "上海外滩", "🚚 low bridge", "\u{FFFD}"] {
            #expect(strictUTF8String(Array(text.utf8)) == text)
        }
    }

    @Test(
        "each kind of invalid sequence is refused",
        arguments: [
            [0x80], // a lone continuation byte
            [0xC3], // a lead byte at the end
            [0xEF, 0xBF], // the replacement character cut short
            [0xEF, 0xBF, 0x41], // … and followed by ASCII
            [0xC0, 0x80], // an overlong NUL
            [0xED, 0xA0, 0x80], // a UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80], // past U+10FFFF
            [0xFF],
            [0x41, 0x42, 0xE2, 0x82], // valid text, then a truncated euro sign
        ] as [[UInt8]])
    func invalidSequences(bytes: [UInt8]) {
        #expect(strictUTF8String(bytes) == nil)
    }

    @Test("agrees with the standard library's validating initializer on random bytes")
    func agreesWithStandardLibrary() {
        // Linux has `String(validating:as:)` at any version: it is the reference here.
        var random = SplitMix64(seed: 42)
        let alphabet: [UInt8] = [
            0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xC0, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0, 0x9F,
        ]
        var valid = 0
        for _ in 0..<20_000 {
            let count = Int(random.next() % 9)
            let bytes = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let reference = String(validating: bytes, as: UTF8.self)
            #expect(strictUTF8String(bytes) == reference, "\(bytes)")
            valid += reference == nil ? 0 : 1
        }
        #expect(valid > 500, "the random inputs must include valid multi-byte text to compare")
    }
}
