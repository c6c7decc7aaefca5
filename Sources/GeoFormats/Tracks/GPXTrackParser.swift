/// Reads GPX 1.1 (and 1.0) tracks with a small streaming XML pull parser of our own.
///
/// Points are `<trkpt>` and `<rtept>` elements (`<wpt>` waypoints are not part of a track
/// and are skipped) with `lat` and `lon` attributes and child elements, matched by local
/// name in any namespace and at any depth inside the point (so Garmin's
/// `<gpxtpx:speed>` in `<extensions>` counts): `<time>` (required), `<ele>`, `<speed>`
/// (m/s), `<course>` (degrees), a horizontal accuracy in metres (`<hacc>`, `<accuracy>`,
/// `<horizontalAccuracy>`), else `<hdop>` × ``TrackReader/Options/metresPerHDOP``.
///
/// XML support: elements, attributes (either quote), the five predefined entities and
/// numeric character references, comments, CDATA, processing instructions and a DOCTYPE
/// (skipped). Malformed XML (mismatched or unclosed tags, end of input inside a tag) is a
/// fatal error with its line and column. Memory is bounded: names and captured texts are
/// capped at 64 KiB.
///
/// Speed: one pass over the bytes, no DOM and no `String` per element or point. Element
/// names live in one flat byte stack, the point's values in reused byte buffers (one per
/// field), and numbers and times are parsed straight from those bytes; `String`s are made
/// only for error messages. The parser is used by one thread and never re-entered, so its
/// fields skip the runtime exclusivity checks (as ``ByteSource``'s do).
final class GPXTrackParser {
    private let source: ByteSource
    private let metresPerHDOP: Double
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var sawRoot = false
    @exclusivity(unchecked) private var rootClosed = false
    @exclusivity(unchecked) private var pending: Result<TrackPoint, TrackParseError>?
    private static let maximumTokenLength = 1 << 16

    /// Open elements' qualified names, end to end; `stackStarts[k]` is where the k-th begins.
    @exclusivity(unchecked) private var stackBytes: [UInt8] = []
    @exclusivity(unchecked) private var stackStarts: [Int] = []
    /// The name being read (start or end tag), reused.
    @exclusivity(unchecked) private var name: [UInt8] = []

    /// The elements the parser cares about, by lowercased local name.
    private enum Tag: Int {
        // Captured values of a point; the raw values index `fields`.
        case time = 0
        case ele, hdop, hacc, accuracy, horizontalAccuracy, speed, course
        case point, gpx, other

        static let fieldCount = 8

        /// The tag of a qualified name: its local part (after the last ':'), any case.
        static func of(_ q: UnsafeBufferPointer<UInt8>) -> Tag {
            var start = 0
            for k in 0..<q.count where q[k] == UInt8(ascii: ":") { start = k + 1 }
            let n = q.count - start
            guard n >= 3, n <= 18 else { return .other }
            @inline(__always) func lower(_ k: Int) -> UInt8 { q[start + k] | 0x20 }
            @inline(__always) func matches(_ s: StaticString) -> Bool {
                guard s.utf8CodeUnitCount == n else { return false }
                let p = s.utf8Start
                for k in 0..<n where lower(k) != p[k] { return false }
                return true
            }
            switch lower(0) {
            case UInt8(ascii: "t"): return matches("time") ? .time : matches("trkpt") ? .point : .other
            case UInt8(ascii: "r"): return matches("rtept") ? .point : .other
            case UInt8(ascii: "e"): return matches("ele") ? .ele : .other
            case UInt8(ascii: "h"):
                return matches("hdop")
                    ? .hdop
                    : matches("hacc")
                        ? .hacc
                        : matches("horizontalaccuracy") ? .horizontalAccuracy : .other
            case UInt8(ascii: "a"): return matches("accuracy") ? .accuracy : .other
            case UInt8(ascii: "s"): return matches("speed") ? .speed : .other
            case UInt8(ascii: "c"): return matches("course") ? .course : .other
            case UInt8(ascii: "g"): return matches("gpx") ? .gpx : .other
            default: return .other
            }
        }

        /// The name used in error messages ("latitude" and "longitude" are the attributes).
        var fieldName: String {
            switch self {
            case .time: "time"
            case .ele: "ele"
            case .hdop: "hdop"
            case .hacc: "hacc"
            case .accuracy: "accuracy"
            case .horizontalAccuracy: "horizontalaccuracy"
            case .speed: "speed"
            case .course: "course"
            case .point: "trkpt"
            case .gpx: "gpx"
            case .other: "other"
            }
        }
    }

    /// The point being read: where it starts, its attributes and first value of each field.
    @exclusivity(unchecked) private var inPoint = false
    @exclusivity(unchecked) private var pointDepth = 0
    @exclusivity(unchecked) private var pointLine = 0
    @exclusivity(unchecked) private var pointColumn = 0
    @exclusivity(unchecked) private var lat: [UInt8]? = nil
    @exclusivity(unchecked) private var lon: [UInt8]? = nil
    /// Trimmed text of each field (indexed by `Tag.rawValue`); `fieldSet` says which are given.
    @exclusivity(unchecked) private var fields: [[UInt8]] = Array(repeating: [], count: Tag.fieldCount)
    @exclusivity(unchecked) private var fieldSet: [Bool] = Array(repeating: false, count: Tag.fieldCount)
    /// The field whose text is being captured, and the text so far.
    @exclusivity(unchecked) private var capturing: Tag?
    @exclusivity(unchecked) private var text: [UInt8] = []

    init(source: ByteSource, options: TrackReader.Options) {
        self.source = source
        metresPerHDOP = options.metresPerHDOP
    }

    private struct Fatal: Error {
        let reason: TrackParseError.Reason
        let line: Int
        let column: Int
    }

    private func fatal(_ why: String) -> Fatal {
        Fatal(reason: .malformedXML(why), line: max(source.lineNumber, 1), column: max(source.column, 1))
    }

    func next() -> Result<TrackPoint, TrackParseError>? {
        while true {
            if let p = pending {
                pending = nil
                return p
            }
            if finished { return nil }
            do {
                try step()
            } catch let f {
                finished = true
                return .failure(
                    TrackParseError(
                        format: .gpx, position: .line(f.line, column: f.column), reason: f.reason, isFatal: true))
            }
        }
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// Reads one markup construct or one run of text.
    private func step() throws(Fatal) {
        guard let b = source.next() else {
            finished = true
            if let e = source.readError {
                throw Fatal(reason: .unreadable(e), line: source.lineNumber, column: source.column)
            }
            if !sawRoot { throw fatal("no root element") }
            if !stackStarts.isEmpty { throw fatal("end of input inside <\(qualifiedName(stackStarts.count - 1))>") }
            return
        }
        if b != UInt8(ascii: "<") {
            if capturing != nil {
                try readText(first: b)
            } else if stackStarts.isEmpty {
                if !GPXTrackParser.isSpace(b) {
                    throw fatal(sawRoot ? "text after the root element" : "text before the root element")
                }
            } else {
                // Text nobody wants: skip the run up to the next markup.
                while let c = source.peek(), c != UInt8(ascii: "<") { _ = source.next() }
            }
            return
        }
        guard let c = source.peek() else { throw fatal("end of input after '<'") }
        switch c {
        case UInt8(ascii: "?"):
            try skip(until: "?>", what: "processing instruction")
        case UInt8(ascii: "!"):
            _ = source.next()
            try markupDeclaration()
        case UInt8(ascii: "/"):
            _ = source.next()
            try endTag()
        default:
            try startTag()
        }
    }

    /// Appends a run of character data (starting with `first`) to `text`, up to the next '<'.
    private func readText(first: UInt8) throws(Fatal) {
        var t = text
        text = []
        defer { text = t }
        var b = first
        while true {
            if b == UInt8(ascii: "&") {
                let decoded = try readEntity()
                if t.count + decoded.count <= GPXTrackParser.maximumTokenLength { t.append(contentsOf: decoded) }
            } else if t.count < GPXTrackParser.maximumTokenLength {
                t.append(b)
            }
            guard let c = source.peek(), c != UInt8(ascii: "<") else { return }
            b = source.next()!
        }
    }

    /// After '&': reads the entity name up to ';' and returns its UTF-8 bytes.
    private func readEntity() throws(Fatal) -> [UInt8] {
        var entity: [UInt8] = []
        while true {
            guard let b = source.next() else { throw fatal("end of input in an entity reference") }
            if b == UInt8(ascii: ";") { break }
            entity.append(b)
            if entity.count > 10 { throw fatal("unterminated entity reference") }
        }
        return try decodeEntity(entity)
    }

    private func decodeEntity(_ name: [UInt8]) throws(Fatal) -> [UInt8] {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return [UInt8(ascii: "&")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        case let s where s.hasPrefix("#"):
            let hex = s.hasPrefix("#x") || s.hasPrefix("#X")
            let digits = s.dropFirst(hex ? 2 : 1)
            guard let v = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(v) else {
                throw fatal("bad character reference &\(s);")
            }
            return Array(String(Character(scalar)).utf8)
        case let s:
            throw fatal("unknown entity &\(s);")
        }
    }

    private func skip(until terminator: StaticString, what: String) throws(Fatal) {
        let t = terminator.utf8Start
        let count = terminator.utf8CodeUnitCount
        var matched = 0
        while true {
            guard let b = source.next() else { throw fatal("end of input inside a \(what)") }
            if b == t[matched] {
                matched += 1
                if matched == count { return }
            } else {
                matched = b == t[0] ? 1 : 0
            }
        }
    }

    /// After `<!`: a comment, CDATA or a DOCTYPE.
    private func markupDeclaration() throws(Fatal) {
        if source.peek() == UInt8(ascii: "-") {
            _ = source.next()
            guard source.next() == UInt8(ascii: "-") else { throw fatal("malformed comment") }
            try skip(until: "-->", what: "comment")
            return
        }
        if source.peek() == UInt8(ascii: "[") {
            for expected in "[CDATA[".utf8 {
                guard source.next() == expected else { throw fatal("malformed CDATA section") }
            }
            let end = Array("]]>".utf8)
            var matched = 0
            while true {
                guard let b = source.next() else { throw fatal("end of input inside CDATA") }
                if capturing != nil, text.count < GPXTrackParser.maximumTokenLength { text.append(b) }
                if b == end[matched] {
                    matched += 1
                    if matched == 3 {
                        if capturing != nil { text.removeLast(min(3, text.count)) }
                        return
                    }
                } else {
                    matched = b == end[0] ? 1 : 0
                }
            }
        }
        // DOCTYPE: skip to the matching '>' (internal subsets in brackets included).
        var brackets = 0
        while true {
            guard let b = source.next() else { throw fatal("end of input inside a declaration") }
            if b == UInt8(ascii: "[") { brackets += 1 }
            if b == UInt8(ascii: "]") { brackets -= 1 }
            if b == UInt8(ascii: ">"), brackets <= 0 { return }
        }
    }

    /// Reads a name into `name` (replacing its contents).
    private func readName() throws(Fatal) {
        var bytes = name
        name = []
        bytes.removeAll(keepingCapacity: true)
        defer { name = bytes }
        while let b = source.peek(), !GPXTrackParser.isSpace(b), b != UInt8(ascii: ">"), b != UInt8(ascii: "/"),
            b != UInt8(ascii: "=")
        {
            _ = source.next()
            bytes.append(b)
            if bytes.count > 1000 { throw fatal("name too long") }
        }
        if bytes.isEmpty { throw fatal("missing name") }
    }

    private func skipSpaces() {
        while let b = source.peek(), GPXTrackParser.isSpace(b) { _ = source.next() }
    }

    /// The qualified name of the open element at `level` (0 = root), for messages.
    private func qualifiedName(_ level: Int) -> String {
        let end = level + 1 < stackStarts.count ? stackStarts[level + 1] : stackBytes.count
        return String(decoding: stackBytes[stackStarts[level]..<end], as: UTF8.self)
    }

    private var nameText: String { String(decoding: name, as: UTF8.self) }

    /// Reads the attributes of a start tag up to '>' or '/>'; returns true if self-closing.
    /// Keeps `lat` and `lon` (entity-decoded) when `keepCoordinates`.
    private func readAttributes(keepCoordinates: Bool) throws(Fatal) -> Bool {
        while true {
            skipSpaces()
            guard let b = source.next() else { throw fatal("end of input inside <\(nameText)>") }
            if b == UInt8(ascii: ">") { return false }
            if b == UInt8(ascii: "/") {
                guard source.next() == UInt8(ascii: ">") else { throw fatal("expected '>' after '/' in <\(nameText)>") }
                return true
            }
            // The attribute's name: only its local part matters, and only "lat" and "lon".
            var localLength = b == UInt8(ascii: ":") ? 0 : 1
            var local: UInt32 = localLength == 0 ? 0 : UInt32(b | 0x20) // the local part's first 3 bytes, lowercased
            var attributeLength = 1
            while let c = source.peek(), !GPXTrackParser.isSpace(c), c != UInt8(ascii: "="), c != UInt8(ascii: ">") {
                _ = source.next()
                attributeLength += 1
                if attributeLength > 1000 { throw fatal("attribute name too long") }
                if c == UInt8(ascii: ":") {
                    localLength = 0
                    local = 0
                    continue
                }
                localLength += 1
                if localLength <= 3 { local = local << 8 | UInt32(c | 0x20) }
            }
            skipSpaces()
            guard source.next() == UInt8(ascii: "=") else {
                throw fatal("expected '=' after attribute name in <\(nameText)>")
            }
            skipSpaces()
            guard let quote = source.next(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw fatal("attribute value not quoted in <\(nameText)>")
            }
            let isLat = localLength == 3 && local == 0x6C_61_74 // "lat"
            let isLon = localLength == 3 && local == 0x6C_6F_6E // "lon"
            let keep = keepCoordinates && (isLat || isLon)
            var value: [UInt8] = []
            var length = 0
            while true {
                guard let c = source.next() else { throw fatal("end of input in an attribute value") }
                if c == quote { break }
                if c == UInt8(ascii: "<") { throw fatal("'<' in an attribute value") }
                if c == UInt8(ascii: "&") {
                    let decoded = try readEntity()
                    if keep { value.append(contentsOf: decoded) }
                    continue
                }
                if keep { value.append(c) }
                length += 1
                if length > GPXTrackParser.maximumTokenLength { throw fatal("attribute value too long") }
            }
            if keep {
                if isLat { lat = value } else { lon = value }
            }
        }
    }

    private func startTag() throws(Fatal) {
        let line = source.lineNumber
        let column = source.column
        if rootClosed { throw fatal("a second root element") }
        try readName()
        let tag = name.withUnsafeBufferPointer { Tag.of($0) }
        let startsPoint = !inPoint && tag == .point
        if startsPoint {
            lat = nil
            lon = nil
        }
        let selfClosing = try readAttributes(keepCoordinates: startsPoint)
        if !sawRoot {
            sawRoot = true
            guard tag == .gpx else {
                throw Fatal(reason: .notGPX(root: nameText), line: line, column: column)
            }
        }
        stackStarts.append(stackBytes.count)
        stackBytes.append(contentsOf: name)
        if startsPoint {
            inPoint = true
            pointDepth = stackStarts.count
            pointLine = line
            pointColumn = column
            for k in 0..<Tag.fieldCount { fieldSet[k] = false }
        } else if inPoint, capturing == nil, tag.rawValue < Tag.fieldCount {
            capturing = tag
            text.removeAll(keepingCapacity: true)
        }
        if selfClosing { close() }
    }

    private func endTag() throws(Fatal) {
        try readName()
        skipSpaces()
        guard source.next() == UInt8(ascii: ">") else { throw fatal("expected '>' to end </\(nameText)>") }
        guard let top = stackStarts.last else { throw fatal("</\(nameText)> without an open element") }
        let same = stackBytes.count - top == name.count && stackBytes[top...].elementsEqual(name)
        guard same else { throw fatal("</\(nameText)> does not close <\(qualifiedName(stackStarts.count - 1))>") }
        close()
    }

    /// Closes the innermost open element.
    private func close() {
        let depth = stackStarts.count
        let top = stackStarts.removeLast()
        guard inPoint else {
            stackBytes.removeSubrange(top...)
            if stackStarts.isEmpty { rootClosed = true }
            return
        }
        if let field = capturing,
            stackBytes.withUnsafeBufferPointer({ Tag.of(UnsafeBufferPointer(rebasing: $0[top...])) }) == field
        {
            if !fieldSet[field.rawValue] {
                fieldSet[field.rawValue] = true
                var trimmed = fields[field.rawValue]
                fields[field.rawValue] = []
                trimmed.removeAll(keepingCapacity: true)
                var lo = 0
                var hi = text.count
                while lo < hi, GPXTrackParser.isSpace(text[lo]) { lo += 1 }
                while hi > lo, GPXTrackParser.isSpace(text[hi - 1]) { hi -= 1 }
                trimmed.append(contentsOf: text[lo..<hi])
                fields[field.rawValue] = trimmed
            }
            capturing = nil
        }
        stackBytes.removeSubrange(top...)
        if stackStarts.isEmpty { rootClosed = true }
        if depth == pointDepth {
            inPoint = false
            capturing = nil
            pending = build()
        }
    }

    /// The number in `bytes`; nil when empty; the error names `field` and the text.
    private static func number(_ bytes: [UInt8], _ field: String) -> Result<Double?, TrackParseError.Reason> {
        if bytes.isEmpty { return .success(nil) }
        guard let v = bytes.withUnsafeBufferPointer({ NumberParsing.parseDouble($0) }) else {
            return .failure(
                .invalidNumber(field: field, text: String(String(decoding: bytes, as: UTF8.self).prefix(40))))
        }
        return .success(v)
    }

    private func build() -> Result<TrackPoint, TrackParseError> {
        func fail(_ r: TrackParseError.Reason) -> Result<TrackPoint, TrackParseError> {
            .failure(TrackParseError(format: .gpx, position: .line(pointLine, column: pointColumn), reason: r))
        }
        guard let latText = lat else { return fail(.missingAttribute("lat")) }
        guard let lonText = lon else { return fail(.missingAttribute("lon")) }
        let timeIndex = Tag.time.rawValue
        guard fieldSet[timeIndex], !fields[timeIndex].isEmpty else { return fail(.missingValue("time")) }
        guard let seconds = fields[timeIndex].withUnsafeBufferPointer({ Timestamp.parseSeconds($0) }) else {
            return fail(.invalidTime(String(String(decoding: fields[timeIndex], as: UTF8.self).prefix(40))))
        }
        let latitude: Double
        let longitude: Double
        switch GPXTrackParser.number(latText, "latitude") {
        case .success(let v?): latitude = v
        case .success(nil): return fail(.missingAttribute("lat"))
        case .failure(let r): return fail(r)
        }
        switch GPXTrackParser.number(lonText, "longitude") {
        case .success(let v?): longitude = v
        case .success(nil): return fail(.missingAttribute("lon"))
        case .failure(let r): return fail(r)
        }
        var ele: Double?
        var hdop: Double?
        var hacc: Double?
        var accuracy: Double?
        var horizontalAccuracy: Double?
        var speed: Double?
        var course: Double?
        for raw in (Tag.time.rawValue + 1)..<Tag.fieldCount where fieldSet[raw] {
            let tag = Tag(rawValue: raw)!
            switch GPXTrackParser.number(fields[raw], tag.fieldName) {
            case .failure(let r): return fail(r)
            case .success(let v):
                switch tag {
                case .ele: ele = v
                case .hdop: hdop = v
                case .hacc: hacc = v
                case .accuracy: accuracy = v
                case .horizontalAccuracy: horizontalAccuracy = v
                case .speed: speed = v
                case .course: course = v
                case .time, .point, .gpx, .other: break
                }
            }
        }
        let metres = hacc ?? horizontalAccuracy ?? accuracy ?? hdop.map { $0 * metresPerHDOP }
        switch PointValidation.make(
            seconds: seconds, latitude: latitude, longitude: longitude,
            elevation: ele, accuracy: metres, speed: speed, course: course)
        {
        case .success(let point): return .success(point)
        case .failure(let r): return fail(r)
        }
    }
}
