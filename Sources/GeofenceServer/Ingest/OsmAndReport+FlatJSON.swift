import Foundation

extension OsmAndReport {
    /// Reads the Traccar Client SDK's `uploadJson` form: a JSON array of locations, each the
    /// parameter form's fields as one object, numbers as JSON numbers
    /// (`[{"id":"phone-7","lat":52.52,"lon":13.4,"timestamp":1764060000,"accuracy":8,"speed":12.5,"bearing":90,"batt":80}]`,
    /// traccar-client-sdk `HttpUploader.kt`; `speed` in knots, `timestamp` in Unix seconds, the
    /// app's own attributes as strings beside them). Each item means what the same parameters
    /// mean (``init(parameters:receivedAt:)``); problems name the item (`[3].lat`).
    ///
    /// Every item names the same device (the SDK sends its one id); an item without a position
    /// is a heartbeat, one marked `valid: false` is left out. More than `maxBatch` items is a
    /// 413, as on the JSON API.
    init(locations items: [ServerJSON], receivedAt: Date, maxBatch: Int) throws(Problem) {
        guard !items.isEmpty else { throw Problem.badRequest(field: "body", detail: "body holds no locations") }
        guard items.count <= maxBatch else {
            throw Problem.batchTooLarge(count: items.count, limit: maxBatch, field: "body")
        }
        var device: String? = nil
        var fixes: [ProtocolFix] = []
        var distrustedItems = 0
        var battery: (percent: Double, time: Date)? = nil
        for (i, item) in items.enumerated() {
            let names = Dictionary(uniqueKeysWithValues: Self.reportParameters.map { ($0, "[\(i)].\($0)") })
            let report: OsmAndReport
            do {
                report = try OsmAndReport(parameters: try Self.parameters(item, index: i), receivedAt: receivedAt)
            } catch { throw error.renamingField(names) }
            guard device == nil || device == report.device else {
                throw Problem.badRequest(
                    field: "[\(i)].id", detail: "[\(i)].id: every location of one upload names the same device")
            }
            device = report.device
            if report.distrusted {
                distrustedItems += 1
            } else {
                fixes += report.fixes.map { fix in
                    ProtocolFix(
                        json: fix.json, fieldNames: fix.fieldNames.mapValues { names[$0] ?? "[\(i)].\($0)" })
                }
            }
            if let percent = report.battery, let time = report.batteryTime, time >= battery?.time ?? .distantPast {
                battery = (percent, time)
            }
        }
        self.device = device!
        self.fixes = fixes
        // Only a report whose every location was marked invalid is counted as distrusted.
        self.distrusted = fixes.isEmpty && distrustedItems > 0
        self.battery = battery?.percent
        self.batteryTime = battery?.time
    }

    /// One location object as the parameter form's text: numbers as the form writes them (an
    /// integral value without a fraction, so that `timestamp` in milliseconds stays
    /// milliseconds), booleans as `true`/`false`; `null`, objects and arrays (no parameter
    /// holds one) left out.
    private static func parameters(_ item: ServerJSON, index: Int) throws(Problem) -> [String: String] {
        let object = try JSONObjectReader(item, path: "[\(index)]")
        guard case .string? = object.fields["id"] else {
            throw Problem.badRequest(field: "[\(index)].id", detail: "[\(index)].id, the device id, must be a string")
        }
        var parameters: [String: String] = [:]
        for (name, value) in object.fields {
            switch value {
            case .string(let text): parameters[name] = text
            case .bool(let flag): parameters[name] = flag ? "true" : "false"
            case .number(let n) where n == n.rounded() && abs(n) < 1e15: parameters[name] = String(Int64(n))
            case .number(let n): parameters[name] = "\(n)"
            case .null, .array, .object: continue
            }
        }
        return parameters
    }
}
