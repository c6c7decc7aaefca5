/// What a device plan obeys: the server-side monitoring switch and how long a phone may keep a
/// plan before revalidating it. Set for the tenant (`PUT /v1/settings`) and overridden per
/// device (`PUT /v1/devices/{id}/settings`); docs/server.md gives the numbers behind the defaults.
struct PlanSettings: Sendable, Hashable {
    /// Whether phones monitor at all; `false` makes every plan empty (battery complaints, a bad
    /// campaign). Default `true`.
    var monitoringEnabled = true
    /// `Cache-Control: max-age` of a plan (seconds): how late a switch or region change reaches
    /// a phone that does not move. Default 900 s (15 min, the shortest background refresh
    /// interval iOS grants); 0 makes every use revalidate.
    var planMaxAgeSeconds = 900

    /// The longest max-age accepted: one day (a phone should hear the switch within a day).
    static let maximumMaxAge = 86_400

    /// These settings with the fields `override` sets replaced.
    func applying(_ override: SettingsOverride) -> PlanSettings {
        var s = self
        if let m = override.monitoringEnabled { s.monitoringEnabled = m }
        if let a = override.planMaxAgeSeconds { s.planMaxAgeSeconds = a }
        return s
    }

    var json: ServerJSON {
        .object([
            "monitoringEnabled": .bool(monitoringEnabled), "planMaxAgeSeconds": .number(Double(planMaxAgeSeconds)),
        ])
    }
}

/// A settings document as stored and as `PUT` takes it: each field set or `null` / absent
/// (inherit: the tenant's value for a device, the default for the tenant).
struct SettingsOverride: Sendable, Hashable {
    var monitoringEnabled: Bool?
    var planMaxAgeSeconds: Int?

    static let fields: Set<String> = ["monitoringEnabled", "planMaxAgeSeconds"]

    /// Reads a `PUT` body: an object with only the known fields, each of its type or `null`;
    /// a 400 problem naming the field otherwise.
    init(body: ServerJSON) throws(Problem) {
        guard case .object(let o) = body else {
            throw Problem.badRequest(field: "body", detail: "settings must be a JSON object, not \(body.typeName)")
        }
        for key in o.keys.sorted() where !Self.fields.contains(key) {
            throw Problem.badRequest(
                field: String(key.prefix(64)),
                detail: "unknown setting \"\(key.prefix(64))\" (known: monitoringEnabled, planMaxAgeSeconds)")
        }
        switch o["monitoringEnabled"] {
        case nil, .null?: monitoringEnabled = nil
        case .bool(let b)?: monitoringEnabled = b
        default:
            throw Problem.badRequest(field: "monitoringEnabled", detail: "monitoringEnabled must be a boolean or null")
        }
        switch o["planMaxAgeSeconds"] {
        case nil, .null?: planMaxAgeSeconds = nil
        case .number(let n)? where n == n.rounded() && n >= 0 && n <= Double(PlanSettings.maximumMaxAge):
            planMaxAgeSeconds = Int(n)
        default:
            throw Problem.badRequest(
                field: "planMaxAgeSeconds",
                detail:
                    "planMaxAgeSeconds must be an integer number of seconds in 0...\(PlanSettings.maximumMaxAge), or null"
            )
        }
    }

    init(monitoringEnabled: Bool? = nil, planMaxAgeSeconds: Int? = nil) {
        self.monitoringEnabled = monitoringEnabled
        self.planMaxAgeSeconds = planMaxAgeSeconds
    }

    /// A stored document (written by ``json``); lenient: a field it cannot read is inherited.
    init(stored: ServerJSON?) {
        if case .bool(let b)? = stored?["monitoringEnabled"] { monitoringEnabled = b }
        if case .number(let n)? = stored?["planMaxAgeSeconds"], n >= 0, n <= Double(PlanSettings.maximumMaxAge) {
            planMaxAgeSeconds = Int(n)
        }
    }

    var json: ServerJSON {
        .object([
            "monitoringEnabled": monitoringEnabled.map(ServerJSON.bool) ?? .null,
            "planMaxAgeSeconds": planMaxAgeSeconds.map { .number(Double($0)) } ?? .null,
        ])
    }
}
