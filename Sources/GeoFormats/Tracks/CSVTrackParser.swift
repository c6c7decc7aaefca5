/// Reads CSV tracks line by line: a header naming the columns, then one fix per row.
///
/// Columns are found by header name (case-insensitive, any order; extra columns ignored):
/// `time` (or `timestamp`), `latitude` (`lat`), `longitude` (`lon`, `lng`), and the
/// optional `accuracy` (`horizontalAccuracy`, `hacc`), `speed`, `course` (`bearing`,
/// `heading`), `elevation` (`ele`, `altitude`). Blank lines and lines starting with `#`
/// are skipped. Fields may be double-quoted. The hot loop works on bytes: no `String` and
/// no `DateFormatter` per field.
final class CSVTrackParser {
    private enum Role: UInt8 { case ignore, time, latitude, longitude, accuracy, speed, course, elevation }

    private let source: ByteSource
    private var roles: [Role] = [] {
        didSet {
            rolePointer.deallocate()
            let p = UnsafeMutableBufferPointer<Role>.allocate(capacity: roles.count)
            _ = p.initialize(from: roles)
            rolePointer = UnsafeBufferPointer(p)
        }
    }
    /// `roles` as a buffer the hot loop reads without array checks; owned, freed on deinit.
    private var rolePointer = UnsafeBufferPointer<Role>(UnsafeMutableBufferPointer<Role>.allocate(capacity: 0))
    private var headerRead = false
    private var finished = false

    init(source: ByteSource) {
        self.source = source
    }

    deinit {
        rolePointer.deallocate()
    }

    private static func role(for name: String) -> Role {
        switch name {
        case "time", "timestamp", "datetime", "date_time": .time
        case "latitude", "lat": .latitude
        case "longitude", "lon", "lng", "long": .longitude
        case "accuracy", "horizontalaccuracy", "horizontal_accuracy", "hacc": .accuracy
        case "speed": .speed
        case "course", "bearing", "heading": .course
        case "elevation", "ele", "altitude", "alt": .elevation
        default: .ignore
        }
    }

    private static func roleName(_ r: Role) -> String {
        switch r {
        case .ignore: "column"
        case .time: "time"
        case .latitude: "latitude"
        case .longitude: "longitude"
        case .accuracy: "accuracy"
        case .speed: "speed"
        case .course: "course"
        case .elevation: "elevation"
        }
    }

    private func fail(_ reason: TrackParseError.Reason, column: Int? = nil, fatal: Bool = false) -> Result<TrackPoint, TrackParseError> {
        if fatal { finished = true }
        return .failure(TrackParseError(format: .csv, position: .line(source.lineNumber, column: column),
                                        reason: reason, isFatal: fatal))
    }

    @inline(__always)
    private static func isSkippable(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in line {
            if b == 0x20 || b == 0x09 { continue }
            return b == UInt8(ascii: "#")
        }
        return true
    }

    /// Splits `line` into fields, calling `body(index, field, column)` for each.
    /// Returns the number of fields, or -1 for an unterminated quote.
    @inline(__always)
    private static func forEachField(_ line: UnsafeBufferPointer<UInt8>,
                                     _ body: (Int, UnsafeBufferPointer<UInt8>, Int) -> Bool) -> Int {
        let n = line.count
        var i = 0
        var index = 0
        while true {
            while i < n, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
            let column = i + 1
            var fieldStart = i
            var fieldEnd: Int
            if i < n, line[i] == UInt8(ascii: "\"") {
                i += 1
                fieldStart = i
                while true {
                    if i >= n { return -1 }
                    if line[i] == UInt8(ascii: "\"") {
                        if i + 1 < n, line[i + 1] == UInt8(ascii: "\"") { i += 2; continue }
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
                while fieldEnd > fieldStart, line[fieldEnd - 1] == 0x20 || line[fieldEnd - 1] == 0x09 { fieldEnd -= 1 }
            }
            let field = UnsafeBufferPointer(rebasing: line[fieldStart..<fieldEnd])
            if !body(index, field, column) { return index + 1 }
            index += 1
            if i >= n { return index }
            i += 1 // the comma
        }
    }

    private func readHeader(_ line: UnsafeBufferPointer<UInt8>) -> Result<TrackPoint, TrackParseError>? {
        var names: [String] = []
        let count = CSVTrackParser.forEachField(line) { _, field, _ in
            names.append(String(decoding: field, as: UTF8.self).lowercased())
            return true
        }
        if count < 0 { return fail(.unterminatedQuote, fatal: true) }
        var seen: Set<Role> = []
        roles = names.map(CSVTrackParser.role(for:))
        for r in roles where r != .ignore {
            if !seen.insert(r).inserted { return fail(.duplicateColumn(CSVTrackParser.roleName(r)), fatal: true) }
        }
        for required in [Role.time, .latitude, .longitude] where !seen.contains(required) {
            return fail(.missingColumn(CSVTrackParser.roleName(required)), fatal: true)
        }
        headerRead = true
        return nil
    }

    func next() -> Result<TrackPoint, TrackParseError>? {
        while !finished {
            let line: UnsafeBufferPointer<UInt8>
            switch source.nextLine() {
            case .end:
                finished = true
                if let e = source.readError { return fail(.unreadable(e), fatal: true) }
                if !headerRead { return .failure(TrackParseError(format: .csv, position: .input, reason: .emptyInput, isFatal: true)) }
                return nil
            case .tooLong:
                if !headerRead { return fail(.lineTooLong, fatal: true) }
                return fail(.lineTooLong)
            case .line(let l):
                line = l
            }
            if CSVTrackParser.isSkippable(line) { continue }
            if !headerRead {
                if let error = readHeader(line) { return error }
                continue
            }
            return parseRow(line)
        }
        return nil
    }

    /// The hot loop: one pass over the row's bytes, fields parsed in place.
    private func parseRow(_ line: UnsafeBufferPointer<UInt8>) -> Result<TrackPoint, TrackParseError> {
        var seconds = Double.nan
        var latitude = Double.nan
        var longitude = Double.nan
        var accuracy: Double?
        var speed: Double?
        var course: Double?
        var elevation: Double?
        let roleCount = rolePointer.count
        let n = line.count
        var i = 0
        var index = 0
        while true {
            while i < n, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
            let column = i + 1
            var fieldStart = i
            var fieldEnd: Int
            if i < n, line[i] == UInt8(ascii: "\"") {
                i += 1
                fieldStart = i
                while true {
                    if i >= n { return fail(.unterminatedQuote) }
                    if line[i] == UInt8(ascii: "\"") {
                        if i + 1 < n, line[i + 1] == UInt8(ascii: "\"") { i += 2; continue }
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
                while fieldEnd > fieldStart, line[fieldEnd - 1] == 0x20 || line[fieldEnd - 1] == 0x09 { fieldEnd -= 1 }
            }
            if index < roleCount {
                let role = rolePointer[index]
                if role != .ignore {
                    let field = UnsafeBufferPointer(rebasing: line[fieldStart..<fieldEnd])
                    if field.isEmpty {
                        switch role {
                        case .time, .latitude, .longitude:
                            return fail(.missingValue(CSVTrackParser.roleName(role)), column: column)
                        default:
                            break
                        }
                    } else if role == .time {
                        guard let s = Timestamp.parseSeconds(field) else {
                            return fail(.invalidTime(PointValidation.excerpt(field)), column: column)
                        }
                        seconds = s
                    } else {
                        guard let v = NumberParsing.parseDouble(field) else {
                            return fail(.invalidNumber(field: CSVTrackParser.roleName(role), text: PointValidation.excerpt(field)),
                                        column: column)
                        }
                        switch role {
                        case .latitude: latitude = v
                        case .longitude: longitude = v
                        case .accuracy: accuracy = v
                        case .speed: speed = v
                        case .course: course = v
                        case .elevation: elevation = v
                        case .time, .ignore: break
                        }
                    }
                }
            }
            index += 1
            if i >= n { break }
            i += 1   // the comma
        }
        if index != roleCount { return fail(.wrongFieldCount(expected: roleCount, found: index)) }
        switch PointValidation.make(seconds: seconds, latitude: latitude, longitude: longitude,
                                    elevation: elevation, accuracy: accuracy, speed: speed, course: course) {
        case .success(let p): return .success(p)
        case .failure(let r): return fail(r)
        }
    }
}
