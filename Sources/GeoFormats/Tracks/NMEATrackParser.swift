/// Reads NMEA 0183 logs line by line: `RMC` and `GGA` sentences from any talker
/// (`GP`, `GN`, `GL`, `GA`, `BD`, ...), checksums verified.
///
/// An RMC and a GGA sentence with the same time of day make one point: position, speed
/// and course (knots → m/s) and the date from RMC; altitude and HDOP from GGA (accuracy
/// = HDOP × ``TrackReader/Options/metresPerHDOP``). A GGA without its RMC takes the date
/// of the last RMC (rolling over midnight). Other sentence types (GSV, GSA, VTG, ...) and
/// `!` encapsulated sentences (AIS) are skipped silently.
final class NMEATrackParser {
    private let source: ByteSource
    private let metresPerHDOP: Double
    private var outbox: [Result<TrackPoint, TrackParseError>] = []
    private var outboxHead = 0
    private var finished = false
    private var sawSentence = false
    private var fields: [Range<Int>] = []

    /// One epoch (time of day) being assembled from RMC and GGA.
    private struct Epoch {
        var timeOfDay: Double
        var line: Int
        var days: Int?
        var latitude: Double
        var longitude: Double
        var elevation: Double?
        var accuracy: Double?
        var speed: Double?
        var course: Double?
        var hasRMC = false
        var hasGGA = false
    }
    private var pending: Epoch?
    private var lastDate: (days: Int, timeOfDay: Double)?

    init(source: ByteSource, options: TrackReader.Options) {
        self.source = source
        metresPerHDOP = options.metresPerHDOP
    }

    func next() -> Result<TrackPoint, TrackParseError>? {
        while true {
            if outboxHead < outbox.count {
                let r = outbox[outboxHead]
                outboxHead += 1
                if outboxHead == outbox.count {
                    outbox.removeAll(keepingCapacity: true)
                    outboxHead = 0
                }
                return r
            }
            if finished { return nil }
            switch source.nextLine() {
            case .end:
                finished = true
                flush()
                if let e = source.readError {
                    outbox.append(
                        .failure(
                            TrackParseError(
                                format: .nmea, position: .line(source.lineNumber), reason: .unreadable(e), isFatal: true
                            )))
                } else if !sawSentence {
                    outbox.append(
                        .failure(TrackParseError(format: .nmea, position: .input, reason: .emptyInput, isFatal: true)))
                }
            case .tooLong:
                report(.lineTooLong, line: source.lineNumber)
            case .line(let line):
                parse(line)
            }
        }
    }

    private func report(_ reason: TrackParseError.Reason, line: Int, column: Int? = nil) {
        outbox.append(.failure(TrackParseError(format: .nmea, position: .line(line, column: column), reason: reason)))
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    private func parse(_ raw: UnsafeBufferPointer<UInt8>) {
        let lineNo = source.lineNumber
        var s = 0
        var e = raw.count
        while s < e, raw[s] == 0x20 || raw[s] == 0x09 { s += 1 }
        while e > s, raw[e - 1] == 0x20 || raw[e - 1] == 0x09 { e -= 1 }
        if s == e { return }
        sawSentence = true
        let lead = raw[s]
        guard lead == UInt8(ascii: "$") || lead == UInt8(ascii: "!") else {
            report(.notASentence, line: lineNo, column: s + 1)
            return
        }
        // Checksum: XOR of the bytes between the lead character and '*'.
        var star = -1
        var sum: UInt8 = 0
        var k = s + 1
        while k < e {
            if raw[k] == UInt8(ascii: "*") {
                star = k
                break
            }
            sum ^= raw[k]
            k += 1
        }
        guard star >= 0, star + 3 == e else {
            report(.missingChecksum, line: lineNo)
            return
        }
        guard let hi = NMEATrackParser.hexValue(raw[star + 1]), let lo = NMEATrackParser.hexValue(raw[star + 2]) else {
            report(.missingChecksum, line: lineNo, column: star + 2)
            return
        }
        let stated = hi << 4 | lo
        guard stated == sum else {
            report(.checksumMismatch(expected: sum, found: stated), line: lineNo, column: star + 2)
            return
        }
        if lead == UInt8(ascii: "!") { return }
        fields.removeAll(keepingCapacity: true)
        var f = s + 1
        for j in (s + 1)..<star where raw[j] == UInt8(ascii: ",") {
            fields.append(f..<j)
            f = j + 1
        }
        fields.append(f..<star)
        let id = fields[0]
        guard id.count == 5, raw[id.lowerBound] != UInt8(ascii: "P") else { return }
        let t0 = raw[id.lowerBound + 2]
        let t1 = raw[id.lowerBound + 3]
        let t2 = raw[id.lowerBound + 4]
        let type = String(decoding: [t0, t1, t2], as: UTF8.self)
        if type == "RMC" {
            parseRMC(raw, line: lineNo)
        } else if type == "GGA" {
            parseGGA(raw, line: lineNo)
        }
    }

    private func field(_ raw: UnsafeBufferPointer<UInt8>, _ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: raw[fields[i]])
    }

    private func column(_ i: Int) -> Int { fields[i].lowerBound + 1 }

    /// hhmmss[.sss] → seconds of the day.
    private func timeOfDay(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard b.count >= 6, let hh = NumberParsing.parseUnsigned(UnsafeBufferPointer(rebasing: b[0..<2])),
            let mm = NumberParsing.parseUnsigned(UnsafeBufferPointer(rebasing: b[2..<4])),
            let ss = NumberParsing.parseDouble(UnsafeBufferPointer(rebasing: b[4...])),
            hh < 24, mm < 60, ss >= 0, ss < 61
        else { return nil }
        return Double(hh * 3600 + mm * 60) + ss
    }

    /// ddmm.mmmm / dddmm.mmmm with hemisphere → signed degrees.
    private func angle(
        _ raw: UnsafeBufferPointer<UInt8>, value: Int, hemisphere: Int, negative: UInt8, positive: UInt8, name: String
    )
        -> Result<Double, TrackParseError.Reason>
    {
        let v = field(raw, value)
        guard let x = NumberParsing.parseDouble(v), x >= 0 else {
            return .failure(.invalidNumber(field: name, text: PointValidation.excerpt(v)))
        }
        let degrees = (x / 100).rounded(.down)
        let minutes = x - degrees * 100
        guard minutes < 60 else { return .failure(.invalidNumber(field: name, text: PointValidation.excerpt(v))) }
        let h = field(raw, hemisphere)
        guard h.count == 1, h[0] == negative || h[0] == positive else {
            return .failure(.invalidNumber(field: name + " hemisphere", text: PointValidation.excerpt(h)))
        }
        let deg = degrees + minutes / 60
        return .success(h[0] == negative ? -deg : deg)
    }

    private func optionalNumber(
        _ raw: UnsafeBufferPointer<UInt8>, _ i: Int, name: String
    ) -> Result<Double?, TrackParseError.Reason> {
        let b = field(raw, i)
        if b.isEmpty { return .success(nil) }
        guard let v = NumberParsing.parseDouble(b) else {
            return .failure(.invalidNumber(field: name, text: PointValidation.excerpt(b)))
        }
        return .success(v)
    }

    private func parseRMC(_ raw: UnsafeBufferPointer<UInt8>, line: Int) {
        guard fields.count >= 10 else {
            report(.truncatedSentence(type: "RMC", fields: fields.count), line: line)
            return
        }
        let status = field(raw, 2)
        if status.count == 1, status[0] == UInt8(ascii: "V") {
            report(.noFix, line: line, column: column(2))
            return
        }
        if field(raw, 3).isEmpty || field(raw, 5).isEmpty {
            report(.noFix, line: line, column: column(3))
            return
        }
        guard let tod = timeOfDay(field(raw, 1)) else {
            report(.invalidTime(PointValidation.excerpt(field(raw, 1))), line: line, column: column(1))
            return
        }
        let d = field(raw, 9)
        guard d.count == 6, let dd = NumberParsing.parseUnsigned(UnsafeBufferPointer(rebasing: d[0..<2])),
            let mo = NumberParsing.parseUnsigned(UnsafeBufferPointer(rebasing: d[2..<4])),
            let yy = NumberParsing.parseUnsigned(UnsafeBufferPointer(rebasing: d[4..<6])),
            (1...12).contains(mo)
        else {
            report(.invalidTime(PointValidation.excerpt(d)), line: line, column: column(9))
            return
        }
        let year = yy < 80 ? 2000 + yy : 1900 + yy
        guard dd >= 1, dd <= Timestamp.daysInMonth(year: year, month: mo) else {
            report(.invalidTime(PointValidation.excerpt(d)), line: line, column: column(9))
            return
        }
        let lat: Double
        let lon: Double
        switch angle(
            raw, value: 3, hemisphere: 4, negative: UInt8(ascii: "S"), positive: UInt8(ascii: "N"), name: "latitude")
        {
        case .success(let v): lat = v
        case .failure(let r):
            report(r, line: line, column: column(3))
            return
        }
        switch angle(
            raw, value: 5, hemisphere: 6, negative: UInt8(ascii: "W"), positive: UInt8(ascii: "E"), name: "longitude")
        {
        case .success(let v): lon = v
        case .failure(let r):
            report(r, line: line, column: column(5))
            return
        }
        let knots: Double?
        let course: Double?
        switch optionalNumber(raw, 7, name: "speed") {
        case .success(let v): knots = v
        case .failure(let r):
            report(r, line: line, column: column(7))
            return
        }
        switch optionalNumber(raw, 8, name: "course") {
        case .success(let v): course = v
        case .failure(let r):
            report(r, line: line, column: column(8))
            return
        }
        let days = Timestamp.daysFromCivil(year: year, month: mo, day: dd)
        if var p = pending, p.timeOfDay == tod, !p.hasRMC {
            p.hasRMC = true
            p.days = days
            p.latitude = lat
            p.longitude = lon
            p.speed = knots.map { $0 * 1852 / 3600 }
            p.course = course
            pending = p
        } else {
            flush()
            pending = Epoch(
                timeOfDay: tod, line: line, days: days, latitude: lat, longitude: lon,
                speed: knots.map { $0 * 1852 / 3600 }, course: course, hasRMC: true)
        }
    }

    private func parseGGA(_ raw: UnsafeBufferPointer<UInt8>, line: Int) {
        guard fields.count >= 10 else {
            report(.truncatedSentence(type: "GGA", fields: fields.count), line: line)
            return
        }
        let quality = field(raw, 6)
        if quality.isEmpty || (quality.count == 1 && quality[0] == UInt8(ascii: "0")) {
            report(.noFix, line: line, column: column(6))
            return
        }
        if field(raw, 2).isEmpty || field(raw, 4).isEmpty {
            report(.noFix, line: line, column: column(2))
            return
        }
        guard let tod = timeOfDay(field(raw, 1)) else {
            report(.invalidTime(PointValidation.excerpt(field(raw, 1))), line: line, column: column(1))
            return
        }
        let lat: Double
        let lon: Double
        switch angle(
            raw, value: 2, hemisphere: 3, negative: UInt8(ascii: "S"), positive: UInt8(ascii: "N"), name: "latitude")
        {
        case .success(let v): lat = v
        case .failure(let r):
            report(r, line: line, column: column(2))
            return
        }
        switch angle(
            raw, value: 4, hemisphere: 5, negative: UInt8(ascii: "W"), positive: UInt8(ascii: "E"), name: "longitude")
        {
        case .success(let v): lon = v
        case .failure(let r):
            report(r, line: line, column: column(4))
            return
        }
        let hdop: Double?
        let altitude: Double?
        switch optionalNumber(raw, 8, name: "hdop") {
        case .success(let v): hdop = v
        case .failure(let r):
            report(r, line: line, column: column(8))
            return
        }
        switch optionalNumber(raw, 9, name: "altitude") {
        case .success(let v): altitude = v
        case .failure(let r):
            report(r, line: line, column: column(9))
            return
        }
        let accuracy = hdop.map { $0 * metresPerHDOP }
        if var p = pending, p.timeOfDay == tod, !p.hasGGA {
            p.hasGGA = true
            p.elevation = altitude
            p.accuracy = accuracy
            pending = p
        } else {
            flush()
            pending = Epoch(
                timeOfDay: tod, line: line, latitude: lat, longitude: lon,
                elevation: altitude, accuracy: accuracy, hasGGA: true)
        }
    }

    /// Turns the pending epoch into a point (or an error) in the outbox.
    private func flush() {
        guard let p = pending else { return }
        pending = nil
        var days: Int
        if let d = p.days {
            days = d
        } else if let last = lastDate {
            days = last.days
            if p.timeOfDay < last.timeOfDay - 43_200 { days += 1 } // past midnight
        } else {
            report(.noDate, line: p.line)
            return
        }
        lastDate = (days, p.timeOfDay)
        let seconds = Double(days) * 86_400 + p.timeOfDay
        switch PointValidation.make(
            seconds: seconds, latitude: p.latitude, longitude: p.longitude,
            elevation: p.elevation, accuracy: p.accuracy, speed: p.speed, course: p.course)
        {
        case .success(let point): outbox.append(.success(point))
        case .failure(let r): report(r, line: p.line)
        }
    }
}
