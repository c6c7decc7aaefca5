import Foundation
import Geofencing

extension FixJSON {
    /// The text of ``journalJSON(device:fixes:)``, written directly (no JSON tree, no key
    /// sorting at run time): exactly the bytes `journalJSON(device:fixes:).encoded()` gives,
    /// at a fraction of the cost — the journal row of every committed batch.
    package static func journalText(device: String, fixes: [LocationFix]) -> String {
        var out = "{\"device\":"
        out.reserveCapacity(32 + fixes.count * 80)
        appendString(device, to: &out)
        out += ",\"fixes\":["
        for (i, f) in fixes.enumerated() {
            if i > 0 { out += "," }
            // Keys in sorted order, as the generic writer emits them: a, c, la, lo, s, t.
            out += "{"
            if let a = f.horizontalAccuracy {
                out += "\"a\":"
                appendNumber(a, to: &out)
                out += ","
            }
            if let c = f.course {
                out += "\"c\":"
                appendNumber(c, to: &out)
                out += ","
            }
            out += "\"la\":"
            appendNumber(f.coordinate.latitude, to: &out)
            out += ",\"lo\":"
            appendNumber(f.coordinate.longitude, to: &out)
            if let s = f.speed {
                out += ",\"s\":"
                appendNumber(s, to: &out)
            }
            out += ",\"t\":"
            appendNumber(f.timestamp.timeIntervalSinceReferenceDate, to: &out)
            out += "}"
        }
        out += "]}"
        return out
    }

    /// The text of ``json(_:)`` (a device's last fix), written directly; the same bytes as
    /// `json(f).encoded()`.
    package static func text(_ f: LocationFix) -> String {
        // Sorted keys: course, horizontalAccuracy, latitude, longitude, speed, timestamp.
        var out = "{"
        if let c = f.course {
            out += "\"course\":"
            appendNumber(c, to: &out)
            out += ","
        }
        if let a = f.horizontalAccuracy {
            out += "\"horizontalAccuracy\":"
            appendNumber(a, to: &out)
            out += ","
        }
        out += "\"latitude\":"
        appendNumber(f.coordinate.latitude, to: &out)
        out += ",\"longitude\":"
        appendNumber(f.coordinate.longitude, to: &out)
        if let s = f.speed {
            out += ",\"speed\":"
            appendNumber(s, to: &out)
        }
        out += ",\"timestamp\":"
        appendNumber(f.timestamp.timeIntervalSince1970, to: &out)
        out += "}"
        return out
    }

    /// A number as the generic JSON writer prints it: integral values below 2^53 without a
    /// fraction, non-finite ones as `null`, others in Swift's shortest round-trip form.
    static func appendNumber(_ n: Double, to out: inout String) {
        if !n.isFinite {
            out += "null"
            return
        }
        if n == n.rounded(), abs(n) < 9_007_199_254_740_992 {
            out += n == 0 ? "0" : String(Int64(n))
            return
        }
        out += n.description
    }

    /// A JSON string literal: appended as is when nothing needs escaping, else through the
    /// generic writer.
    static func appendString(_ s: String, to out: inout String) {
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out += "\""
            out += s
            out += "\""
        } else {
            out += ServerJSON.string(s).description
        }
    }
}
