/// The track file formats the readers understand, and detection from content.
///
/// ```swift
/// TrackFormat.detect(Array("$GPRMC,...".utf8))   // .nmea
/// ```
/// Detection looks at the first byte that is not whitespace (after an optional UTF-8
/// byte-order mark): `<` → GPX, `$` or `!` → NMEA 0183, `{` → GeoJSON, anything else → CSV.
/// It never fails; a wrong guess shows up as a parse error of the guessed format.
public enum TrackFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case gpx, nmea, csv, geojson

    public var description: String { rawValue }

    /// The format suggested by the first significant byte; nil when there is none (empty input).
    public static func detect(firstSignificantByte byte: UInt8?) -> TrackFormat? {
        switch byte {
        case nil: nil
        case UInt8(ascii: "<"): .gpx
        case UInt8(ascii: "$"), UInt8(ascii: "!"): .nmea
        case UInt8(ascii: "{"): .geojson
        default: .csv
        }
    }

    /// The format of `bytes` (see the type's documentation); nil for empty or blank input.
    public static func detect(_ bytes: some Sequence<UInt8>) -> TrackFormat? {
        var first = true
        var bomState = 0
        for b in bytes {
            if first, bomState < 3 {
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                if b == bom[bomState] {
                    bomState += 1
                    continue
                }
                first = false
            }
            first = false
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { continue }
            return detect(firstSignificantByte: b)
        }
        return nil
    }

    /// The format a file name's extension suggests (`.gpx`, `.nmea`/`.nma`/`.log`/`.txt`,
    /// `.csv`, `.geojson`/`.json`), or nil. Content detection is preferred; this is a hint.
    public static func fromExtension(_ fileName: String) -> TrackFormat? {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "gpx": return .gpx
        case "nmea", "nma": return .nmea
        case "csv": return .csv
        case "geojson", "json": return .geojson
        default: return nil
        }
    }
}
