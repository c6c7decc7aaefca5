import Foundation

/// A title or body template: text with placeholders filled from the event's region and device.
///
/// ```text
/// Welcome to {region.name}!          → Welcome to Bund Shop!
/// {{literal braces}} {device.id}      → {literal braces} phone-1
/// ```
///
/// Placeholders: `{region.id}`, `{region.name}`, `{region.metadata.KEY}` (any region property
/// kept as metadata; KEY is 1–64 letters, digits, `-` or `_`), `{device.id}`, `{event.kind}`
/// (`enter`, `exit`, `dwell`). `{{` and `}}` are literal braces. Anything else in braces is
/// refused when the rule is stored, so a typo never reaches a phone. A value is cut to
/// ``valueMaximumScalars`` (an ellipsis marks the cut) and a missing one is empty, so the
/// longest text a template can produce is known in advance (``maximumEscapedBytes``). No
/// loops, conditions or expressions: filling costs O(template length + values).
public struct NotificationTemplate: Sendable, Hashable {
    /// One placeholder.
    public enum Placeholder: Sendable, Hashable {
        case regionID, regionName, deviceID, eventKind
        case regionMetadata(String)
    }

    enum Part: Sendable, Hashable {
        case text(String)
        case value(Placeholder)
    }

    /// The template as the rule was written.
    public let source: String
    let parts: [Part]

    /// Values longer than this many Unicode scalars are cut (a greeting, not a document).
    public static let valueMaximumScalars = 64
    /// The longest template accepted, in Unicode scalars.
    public static let sourceMaximumScalars = 1_024

    /// Reads `source`; a ``Problem`` (400) naming `field` for an unknown placeholder or an
    /// unmatched brace.
    public init(_ source: String, field: String) throws(Problem) {
        guard source.unicodeScalars.count <= Self.sourceMaximumScalars else {
            throw Problem.badRequest(
                field: field, detail: "\(field) is longer than \(Self.sourceMaximumScalars) characters")
        }
        var parts: [Part] = []
        var text = ""
        var rest = Substring(source)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "{", rest.first == "{" {
                text.append("{")
                rest = rest.dropFirst()
            } else if c == "}", rest.first == "}" {
                text.append("}")
                rest = rest.dropFirst()
            } else if c == "{" {
                guard let close = rest.firstIndex(of: "}") else {
                    throw Problem.badRequest(
                        field: field, detail: "\(field) has a { without its } (write {{ for a brace)")
                }
                let name = rest[..<close]
                guard let p = Self.placeholder(String(name)) else {
                    throw Problem.badRequest(
                        field: field,
                        detail:
                            "\(field) has an unknown placeholder {\(name.prefix(64))}; known: {region.id}, {region.name}, {region.metadata.KEY}, {device.id}, {event.kind}"
                    )
                }
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
                parts.append(.value(p))
                rest = rest[rest.index(after: close)...]
            } else if c == "}" {
                throw Problem.badRequest(field: field, detail: "\(field) has a } without its { (write }} for a brace)")
            } else {
                text.append(c)
            }
        }
        if !text.isEmpty { parts.append(.text(text)) }
        self.source = source
        self.parts = parts
    }

    static func placeholder(_ name: String) -> Placeholder? {
        switch name {
        case "region.id": return .regionID
        case "region.name": return .regionName
        case "device.id": return .deviceID
        case "event.kind": return .eventKind
        default:
            let prefix = "region.metadata."
            guard name.hasPrefix(prefix) else { return nil }
            let key = name.dropFirst(prefix.count)
            guard (1...64).contains(key.utf8.count),
                key.utf8.allSatisfy({
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == 0x2D || $0 == 0x5F
                })
            else { return nil }
            return .regionMetadata(String(key))
        }
    }

    /// The text with every placeholder filled from `values` (a missing value is empty).
    public func render(_ values: TemplateValues) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let t): out += t
            case .value(let p): out += Self.cut(values[p] ?? "")
            }
        }
        return out
    }

    /// `value` cut to ``valueMaximumScalars`` scalars, with an ellipsis where it was cut.
    static func cut(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard scalars.count > valueMaximumScalars else { return value }
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars.prefix(valueMaximumScalars - 1))
        s.append("…")
        return String(s)
    }

    /// The most bytes the filled text can take inside a JSON string: the literal text escaped,
    /// plus for each placeholder ``valueMaximumScalars`` scalars of 6 bytes each (a control
    /// character escaped as `\u00XX` is the longest; any other scalar is at most 4 bytes of
    /// UTF-8) — `event.kind` at most 5 bytes.
    public var maximumEscapedBytes: Int {
        parts.reduce(0) { sum, part in
            switch part {
            case .text(let t): sum + Self.escapedBytes(t)
            case .value(.eventKind): sum + 5
            case .value: sum + 6 * Self.valueMaximumScalars
            }
        }
    }

    /// The bytes `s` takes inside a JSON string (RFC 8259 §7: `"` and `\` take 2, control
    /// characters 6 at most).
    static func escapedBytes(_ s: String) -> Int {
        s.unicodeScalars.reduce(0) { sum, u in
            switch u.value {
            case 0x22, 0x5C: sum + 2
            case 0..<0x20: sum + 6
            default: sum + String(u).utf8.count
            }
        }
    }
}

/// The values a template is filled from: the region's id, name and metadata, the device id and
/// the event's kind.
public struct TemplateValues: Sendable {
    public var regionID: String
    public var regionName: String?
    public var regionMetadata: [String: String]
    public var deviceID: String
    public var eventKind: String

    public init(
        regionID: String, regionName: String?, regionMetadata: [String: String], deviceID: String, eventKind: String
    ) {
        self.regionID = regionID
        self.regionName = regionName
        self.regionMetadata = regionMetadata
        self.deviceID = deviceID
        self.eventKind = eventKind
    }

    subscript(_ p: NotificationTemplate.Placeholder) -> String? {
        switch p {
        case .regionID: regionID
        case .regionName: regionName
        case .deviceID: deviceID
        case .eventKind: eventKind
        case .regionMetadata(let key): regionMetadata[key]
        }
    }
}
