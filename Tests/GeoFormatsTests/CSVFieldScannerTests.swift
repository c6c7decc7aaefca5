import Testing

@testable import GeoFormats

@Suite("CSV field scanner")
struct CSVFieldScannerTests {
    /// Each field as (text, column), or nil for an unterminated quote.
    func scan(_ line: String) -> [(String, Int)?] {
        Array(line.utf8).withBytes { bytes in
            var scanner = CSVFieldScanner(bytes)
            var out: [(String, Int)?] = []
            while let f = scanner.next() {
                switch f {
                case .field(let b, let column): out.append((String(decoding: b, as: UTF8.self), column))
                case .unterminatedQuote: out.append(nil)
                }
            }
            return out
        }
    }

    @Test("fields are split on commas, blanks around them dropped, columns 1-based")
    func plainFields() {
        let fields = scan(" a ,b,\tc\t")
        #expect(fields.map { $0?.0 } == ["a", "b", "c"])
        #expect(fields.map { $0?.1 } == [2, 5, 8])
    }

    @Test("a line of n commas has n + 1 fields; an empty line has one")
    func emptyFields() {
        #expect(scan(",,").map { $0?.0 } == ["", "", ""])
        #expect(scan("a,").map { $0?.0 } == ["a", ""])
        #expect(scan("").map { $0?.0 } == [""])
    }

    @Test("quoted fields keep commas; a doubled quote stays inside; text after the quote is dropped")
    func quotedFields() {
        #expect(scan("\"a,b\",c").map { $0?.0 } == ["a,b", "c"])
        #expect(scan("\"say \"\"hi\"\"\" ,x").map { $0?.0 } == ["say \"\"hi\"\"", "x"])
        #expect(scan("\"a\"junk,b").map { $0?.0 } == ["a", "b"])
    }

    @Test("an unterminated quote ends the scan")
    func unterminated() {
        let fields = scan("a,\"bc")
        #expect(fields.count == 2)
        #expect(fields[0]?.0 == "a")
        #expect(fields[1] == nil)
    }
}
