import Foundation

/// Reads a committed CSV fixture (`kind,v1,v2,…`; '#' lines are comments).
enum Fixture {
    struct Row {
        var kind: String
        var values: [Double]
        var line: Int
    }

    static func rows(_ name: String) throws -> [Row] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [Row] = []
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",")
            let values = fields.dropFirst().map { Double(String($0))! }
            rows.append(Row(kind: String(fields[0]), values: values, line: i + 1))
        }
        return rows
    }
}

/// |a − b| for angles in degrees, taking the wrap at ±180 into account.
func angleError(_ a: Double, _ b: Double) -> Double {
    let d = (a - b).remainder(dividingBy: 360)
    return abs(d)
}
