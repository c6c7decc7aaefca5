/// Splits one CSV line into its fields, in place: the one field splitter shared by the CSV
/// header and rows.
///
/// ```swift
/// var scanner = CSVFieldScanner(line)
/// while let field = scanner.next() {
///     guard case .field(let bytes, let column) = field else { /* unterminated quote */ }
/// }
/// ```
///
/// Fields are separated by commas; spaces and tabs around a field are dropped; a field may
/// be double-quoted (a doubled quote inside stands for one, and is left doubled in the
/// bytes: no number or time contains a quote). O(n) in the line, no allocation: each field
/// points into the line.
struct CSVFieldScanner {
    /// One step of the scan.
    enum Field {
        /// The field's bytes (quotes and surrounding blanks removed) and its 1-based column.
        case field(UnsafeBufferPointer<UInt8>, column: Int)
        /// A quoted field that runs to the end of the line; the scan stops.
        case unterminatedQuote
    }

    private let line: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var done = false

    init(_ line: UnsafeBufferPointer<UInt8>) {
        self.line = line
    }

    @inline(__always)
    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// The next field, or nil after the last one (a line of n commas has n + 1 fields).
    @inline(__always)
    mutating func next() -> Field? {
        if done { return nil }
        let n = line.count
        while i < n, CSVFieldScanner.isBlank(line[i]) { i += 1 }
        let column = i + 1
        var fieldStart = i
        var fieldEnd: Int
        if i < n, line[i] == UInt8(ascii: "\"") {
            i += 1
            fieldStart = i
            while true {
                if i >= n {
                    done = true
                    return .unterminatedQuote
                }
                if line[i] == UInt8(ascii: "\"") {
                    if i + 1 < n, line[i + 1] == UInt8(ascii: "\"") {
                        i += 2
                        continue
                    }
                    break
                }
                i += 1
            }
            fieldEnd = i
            i += 1
            while i < n, line[i] != UInt8(ascii: ",") { i += 1 }
        } else {
            while i < n, line[i] != UInt8(ascii: ",") { i += 1 }
            fieldEnd = i
            while fieldEnd > fieldStart, CSVFieldScanner.isBlank(line[fieldEnd - 1]) { fieldEnd -= 1 }
        }
        if i >= n { done = true } else { i += 1 } // past the comma
        return .field(UnsafeBufferPointer(rebasing: line[fieldStart..<fieldEnd]), column: column)
    }
}
