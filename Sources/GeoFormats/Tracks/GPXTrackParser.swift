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
final class GPXTrackParser {
    private let source: ByteSource
    private let metresPerHDOP: Double
    private var stack: [String] = []
    private var finished = false
    private var sawRoot = false
    private var rootClosed = false
    private var pendingResults: [Result<TrackPoint, TrackParseError>] = []
    private static let maximumTokenLength = 1 << 16
    /// Optional child elements read as numbers, in the order `build` unpacks them.
    private static let optionalKeys = ["ele", "hdop", "hacc", "accuracy", "horizontalaccuracy", "speed", "course"]

    /// The point being read.
    private struct PointState {
        var depth: Int
        var line: Int
        var column: Int
        var lat: String?
        var lon: String?
        var values: [String: String] = [:]
    }
    private var point: PointState?
    private var capturing: String?
    private var text: [UInt8] = []

    init(source: ByteSource, options: TrackReader.Options) {
        self.source = source
        metresPerHDOP = options.metresPerHDOP
    }

    private struct Fatal: Error { let reason: TrackParseError.Reason; let line: Int; let column: Int }

    private func fatal(_ why: String) -> Fatal {
        Fatal(reason: .malformedXML(why), line: max(source.lineNumber, 1), column: max(source.column, 1))
    }

    func next() -> Result<TrackPoint, TrackParseError>? {
        while true {
            if !pendingResults.isEmpty { return pendingResults.removeFirst() }
            if finished { return nil }
            do {
                try step()
            } catch let f {
                finished = true
                return .failure(TrackParseError(format: .gpx, position: .line(f.line, column: f.column), reason: f.reason, isFatal: true))
            }
        }
    }

    /// Reads one markup construct or one run of text.
    private func step() throws(Fatal) {
        guard let b = source.next() else {
            finished = true
            if let e = source.readError { throw Fatal(reason: .unreadable(e), line: source.lineNumber, column: source.column) }
            if !sawRoot { throw fatal("no root element") }
            if let open = stack.last { throw fatal("end of input inside <\(open)>") }
            return
        }
        if b != UInt8(ascii: "<") {
            if capturing != nil {
                if text.count < GPXTrackParser.maximumTokenLength { text.append(b) }
                if b == UInt8(ascii: "&") { try appendEntity() }
            } else if stack.isEmpty, !(b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D) {
                throw fatal(sawRoot ? "text after the root element" : "text before the root element")
            }
            return
        }
        guard let c = source.peek() else { throw fatal("end of input after '<'") }
        switch c {
        case UInt8(ascii: "?"):
            try skip(until: [UInt8(ascii: "?"), UInt8(ascii: ">")], what: "processing instruction")
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

    /// Replaces the '&' just appended to `text` by the entity's character.
    private func appendEntity() throws(Fatal) {
        text.removeLast()
        var name: [UInt8] = []
        while true {
            guard let b = source.next() else { throw fatal("end of input in an entity reference") }
            if b == UInt8(ascii: ";") { break }
            name.append(b)
            if name.count > 10 { throw fatal("unterminated entity reference") }
        }
        text.append(contentsOf: try decodeEntity(name))
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

    private func skip(until terminator: [UInt8], what: String) throws(Fatal) {
        var matched = 0
        while true {
            guard let b = source.next() else { throw fatal("end of input inside a \(what)") }
            if b == terminator[matched] {
                matched += 1
                if matched == terminator.count { return }
            } else {
                matched = b == terminator[0] ? 1 : 0
            }
        }
    }

    /// After `<!`: a comment, CDATA or a DOCTYPE.
    private func markupDeclaration() throws(Fatal) {
        if source.peek() == UInt8(ascii: "-") {
            _ = source.next()
            guard source.next() == UInt8(ascii: "-") else { throw fatal("malformed comment") }
            try skip(until: Array("-->".utf8), what: "comment")
            return
        }
        if source.peek() == UInt8(ascii: "[") {
            for expected in Array("[CDATA[".utf8) {
                guard source.next() == expected else { throw fatal("malformed CDATA section") }
            }
            var matched = 0
            let end = Array("]]>".utf8)
            while true {
                guard let b = source.next() else { throw fatal("end of input inside CDATA") }
                if capturing != nil, text.count < GPXTrackParser.maximumTokenLength { text.append(b) }
                if b == end[matched] {
                    matched += 1
                    if matched == 3 { if capturing != nil { text.removeLast(min(3, text.count)) }; return }
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

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private func readName() throws(Fatal) -> String {
        var bytes: [UInt8] = []
        while let b = source.peek(), !GPXTrackParser.isSpace(b), b != UInt8(ascii: ">"), b != UInt8(ascii: "/"), b != UInt8(ascii: "=") {
            _ = source.next()
            bytes.append(b)
            if bytes.count > 1000 { throw fatal("name too long") }
        }
        if bytes.isEmpty { throw fatal("missing name") }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func skipSpaces() {
        while let b = source.peek(), GPXTrackParser.isSpace(b) { _ = source.next() }
    }

    /// The local part of a qualified name (`gpxtpx:speed` → `speed`), lowercased.
    private static func localName(_ qname: String) -> String {
        let utf8 = qname.utf8
        var start = utf8.startIndex
        var hasUpper = false
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: ":") { start = utf8.index(after: i); hasUpper = false }
            else if b >= UInt8(ascii: "A"), b <= UInt8(ascii: "Z") { hasUpper = true }
            i = utf8.index(after: i)
        }
        let local = start == utf8.startIndex ? qname : String(Substring(utf8[start...]))
        return hasUpper ? local.lowercased() : local
    }

    private func startTag() throws(Fatal) {
        let line = source.lineNumber
        let column = source.column
        if rootClosed { throw fatal("a second root element") }
        let qname = try readName()
        var attributes: [String: String] = [:]
        var selfClosing = false
        while true {
            skipSpaces()
            guard let b = source.next() else { throw fatal("end of input inside <\(qname)>") }
            if b == UInt8(ascii: ">") { break }
            if b == UInt8(ascii: "/") {
                guard source.next() == UInt8(ascii: ">") else { throw fatal("expected '>' after '/' in <\(qname)>") }
                selfClosing = true
                break
            }
            var nameBytes: [UInt8] = [b]
            while let c = source.peek(), !GPXTrackParser.isSpace(c), c != UInt8(ascii: "="), c != UInt8(ascii: ">") {
                _ = source.next()
                nameBytes.append(c)
                if nameBytes.count > 1000 { throw fatal("attribute name too long") }
            }
            skipSpaces()
            guard source.next() == UInt8(ascii: "=") else { throw fatal("expected '=' after attribute name in <\(qname)>") }
            skipSpaces()
            guard let quote = source.next(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw fatal("attribute value not quoted in <\(qname)>")
            }
            var value: [UInt8] = []
            while true {
                guard let c = source.next() else { throw fatal("end of input in an attribute value") }
                if c == quote { break }
                if c == UInt8(ascii: "<") { throw fatal("'<' in an attribute value") }
                if c == UInt8(ascii: "&") {
                    var name: [UInt8] = []
                    while true {
                        guard let d = source.next() else { throw fatal("end of input in an entity reference") }
                        if d == UInt8(ascii: ";") { break }
                        name.append(d)
                        if name.count > 10 { throw fatal("unterminated entity reference") }
                    }
                    value.append(contentsOf: try decodeEntity(name))
                    continue
                }
                value.append(c)
                if value.count > GPXTrackParser.maximumTokenLength { throw fatal("attribute value too long") }
            }
            attributes[GPXTrackParser.localName(String(decoding: nameBytes, as: UTF8.self))] = String(decoding: value, as: UTF8.self)
        }
        let name = GPXTrackParser.localName(qname)
        if !sawRoot {
            sawRoot = true
            guard name == "gpx" else {
                throw Fatal(reason: .notGPX(root: qname), line: line, column: column)
            }
        }
        stack.append(qname)
        if point == nil, name == "trkpt" || name == "rtept" {
            point = PointState(depth: stack.count, line: line, column: column, lat: attributes["lat"], lon: attributes["lon"])
        } else if point != nil, capturing == nil {
            switch name {
            case "time", "ele", "hdop", "hacc", "accuracy", "horizontalaccuracy", "speed", "course":
                capturing = name
                text.removeAll(keepingCapacity: true)
            default:
                break
            }
        }
        if selfClosing { try close(qname) }
    }

    private func endTag() throws(Fatal) {
        let qname = try readName()
        skipSpaces()
        guard source.next() == UInt8(ascii: ">") else { throw fatal("expected '>' to end </\(qname)>") }
        guard let open = stack.last else { throw fatal("</\(qname)> without an open element") }
        guard open == qname else { throw fatal("</\(qname)> does not close <\(open)>") }
        try close(qname)
    }

    private func close(_ qname: String) throws(Fatal) {
        let depth = stack.count
        stack.removeLast()
        if stack.isEmpty { rootClosed = true }
        guard point != nil else { return }
        // Mutate `point` in place (a copy would duplicate its dictionary on write).
        if let field = capturing, GPXTrackParser.localName(qname) == field {
            if point!.values[field] == nil {
                point!.values[field] = String(decoding: text, as: UTF8.self).trimmingSpaces()
            }
            capturing = nil
        }
        if depth == point!.depth {
            let p = point!
            point = nil
            capturing = nil
            pendingResults.append(build(p))
        }
    }

    private func number(_ text: String?, _ field: String) -> Result<Double?, TrackParseError.Reason> {
        guard var text else { return .success(nil) }
        if text.isEmpty { return .success(nil) }
        let parsed = text.withUTF8 { NumberParsing.parseDouble($0) }
        guard let v = parsed else { return .failure(.invalidNumber(field: field, text: String(text.prefix(40)))) }
        return .success(v)
    }

    private func build(_ p: PointState) -> Result<TrackPoint, TrackParseError> {
        func fail(_ r: TrackParseError.Reason) -> Result<TrackPoint, TrackParseError> {
            .failure(TrackParseError(format: .gpx, position: .line(p.line, column: p.column), reason: r))
        }
        guard let latText = p.lat else { return fail(.missingAttribute("lat")) }
        guard let lonText = p.lon else { return fail(.missingAttribute("lon")) }
        guard var timeText = p.values["time"], !timeText.isEmpty else { return fail(.missingValue("time")) }
        guard let seconds = timeText.withUTF8({ Timestamp.parseSeconds($0) }) else { return fail(.invalidTime(String(timeText.prefix(40)))) }
        let latitude: Double, longitude: Double
        switch number(latText, "latitude") {
        case .success(let v?): latitude = v
        case .success(nil): return fail(.missingAttribute("lat"))
        case .failure(let r): return fail(r)
        }
        switch number(lonText, "longitude") {
        case .success(let v?): longitude = v
        case .success(nil): return fail(.missingAttribute("lon"))
        case .failure(let r): return fail(r)
        }
        var optionals: [Double?] = [nil, nil, nil, nil, nil, nil, nil]
        let keys = GPXTrackParser.optionalKeys
        for k in 0..<keys.count {
            guard let text = p.values[keys[k]] else { continue }
            switch number(text, keys[k]) {
            case .success(let v): optionals[k] = v
            case .failure(let r): return fail(r)
            }
        }
        let (ele, hdop, hacc, acc, hAcc, speed, course) =
            (optionals[0], optionals[1], optionals[2], optionals[3], optionals[4], optionals[5], optionals[6])
        let accuracy = hacc ?? hAcc ?? acc ?? hdop.map { $0 * metresPerHDOP }
        switch PointValidation.make(seconds: seconds, latitude: latitude, longitude: longitude,
                                    elevation: ele, accuracy: accuracy, speed: speed, course: course) {
        case .success(let point): return .success(point)
        case .failure(let r): return fail(r)
        }
    }
}

extension String {
    /// Without leading and trailing ASCII whitespace.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
