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
    @exclusivity(unchecked) private var rolePointer = UnsafeBufferPointer<Role>(
        UnsafeMutableBufferPointer<Role>.allocate(capacity: 0))
    @exclusivity(unchecked) private var headerRead = false
    @exclusivity(unchecked) private var finished = false

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

    private func fail(
        _ reason: TrackParseError.Reason, column: Int? = nil, fatal: Bool = false
    ) -> Result<TrackPoint, TrackParseError> {
        if fatal { finished = true }
        return .failure(
            TrackParseError(
                format: .csv, position: .line(source.lineNumber, column: column),
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

    private func readHeader(_ line: UnsafeBufferPointer<UInt8>) -> Result<TrackPoint, TrackParseError>? {
        var names: [String] = []
        var scanner = CSVFieldScanner(line)
        while let field = scanner.next() {
            guard case .field(let bytes, _) = field else { return fail(.unterminatedQuote, fatal: true) }
            names.append(String(decoding: bytes, as: UTF8.self).lowercased())
        }
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
                if !headerRead {
                    return .failure(TrackParseError(format: .csv, position: .input, reason: .emptyInput, isFatal: true))
                }
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
        var index = 0
        var scanner = CSVFieldScanner(line)
        while let next = scanner.next() {
            guard case .field(let field, let column) = next else { return fail(.unterminatedQuote) }
            defer { index += 1 }
            guard index < roleCount else { continue }
            let role = rolePointer[index]
            if role == .ignore { continue }
            if field.isEmpty {
                switch role {
                case .time, .latitude, .longitude:
                    return fail(.missingValue(CSVTrackParser.roleName(role)), column: column)
                default:
                    continue
                }
            }
            if role == .time {
                guard let s = Timestamp.parseSeconds(field) else {
                    return fail(.invalidTime(PointValidation.excerpt(field)), column: column)
                }
                seconds = s
                continue
            }
            guard let v = NumberParsing.parseDouble(field) else {
                return fail(
                    .invalidNumber(field: CSVTrackParser.roleName(role), text: PointValidation.excerpt(field)),
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
        if index != roleCount { return fail(.wrongFieldCount(expected: roleCount, found: index)) }
        switch PointValidation.make(
            seconds: seconds, latitude: latitude, longitude: longitude,
            elevation: elevation, accuracy: accuracy, speed: speed, course: course)
        {
        case .success(let p): return .success(p)
        case .failure(let r): return fail(r)
        }
    }
}
