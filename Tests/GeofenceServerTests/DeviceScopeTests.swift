import Foundation
import Geofencing
import HTTPTypes
import NIOHTTP1
import Testing

@testable import GeofenceCLI
@testable import GeofenceServer

/// The `device` key (docs/server.md, "Keys and scopes"): bound to one device id or a prefix, it
/// reports that device's fixes, reads its plan and settings and manages its push tokens, and
/// gets 403 on every other operation of the OpenAPI document and for every other device.
@Suite("API key scopes: device")
struct DeviceScopeTests {
    typealias Scopes = KeyScopeTests
    typealias Apps = TrackingAppIngestTests

    /// What a device key may call, as "METHOD /path-template"; and every operation under
    /// `/v1/devices/{id}/push-tokens`, whatever routes that family holds.
    static let allowed: Set<String> = [
        "POST /v1/devices/{id}/locations", "GET /v1/ingest/osmand", "POST /v1/ingest/osmand",
        "POST /v1/ingest/owntracks", "GET /v1/devices/{id}/plan", "GET /v1/devices/{id}/settings",
        "GET /v1/devices/{id}/notification-settings", "PUT /v1/devices/{id}/notification-settings",
        "GET /v1/devices/{id}/notifications",
    ]

    static func isAllowed(_ method: String, _ template: String) -> Bool {
        allowed.contains("\(method) \(template)") || template.hasPrefix("/v1/devices/{id}/push-tokens")
    }

    /// `template` with every `{…}` parameter filled with `id`.
    static func fill(_ template: String, with id: String) -> String {
        template.replacingOccurrences(of: #"\{[^}]+\}"#, with: id, options: .regularExpression)
    }

    @Test("a device key does exactly a phone's operations for its own device and gets 403 on every other one")
    func walkOwnDevice() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let phone = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("phone-7")))
            let operations = try await Scopes.operations(h, admin: admin)
            #expect(operations.count >= 25)
            var allowedSeen = 0
            for (method, template) in operations where template != "/health" {
                let r = try await Scopes.send(h, method, Self.fill(template, with: "phone-7"), key: phone)
                if Self.isAllowed(method, template) {
                    allowedSeen += 1
                    #expect(r.status != 403 && r.status != 401, "\(method) \(template): \(r)")
                } else {
                    #expect(r.status == 403, "\(method) \(template) with a device key: \(r)")
                }
            }
            #expect(allowedSeen >= Self.allowed.count)
            #expect(try await h.call(.GET, "/metrics", key: phone).status == 403)
            // What the phone does, done: a fix, its plan, its settings.
            let t = h.clock.date.timeIntervalSince1970
            let fix = try await h.call(
                .POST, "/v1/devices/phone-7/locations", key: phone, body: fixJSON(52.5, 13.4, t: t))
            #expect(fix.status == 200, "\(fix)")
            let plan = try await h.call(.GET, "/v1/devices/phone-7/plan?lat=52.5&lon=13.4", key: phone)
            #expect(plan.status == 200 && plan["device"]?.string == "phone-7", "\(plan)")
            let settings = try await h.call(.GET, "/v1/devices/phone-7/settings", key: phone)
            #expect(settings.status == 200 && settings["effective"] != nil, "\(settings)")
            // Its settings are the operator's to change, not the phone's.
            let put = try await h.call(
                .PUT, "/v1/devices/phone-7/settings", key: phone, body: #"{"monitoringEnabled":false}"#)
            #expect(put.status == 403)
            let stored = try await h.call(.GET, "/v1/devices/phone-7/settings", key: admin)
            #expect(stored["effective"]?["monitoringEnabled"] == .bool(true), "\(stored)")
        }
    }

    @Test("a device key gets 403 for another device on every operation, however the id is spelled")
    func walkOtherDevice() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let phone = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("phone-7")))
            for (method, template) in try await Scopes.operations(h, admin: admin)
            where template.hasPrefix("/v1/devices/{id}") {
                let r = try await Scopes.send(h, method, Self.fill(template, with: "phone-8"), key: phone)
                #expect(r.status == 403, "\(method) \(template) for another device: \(r)")
            }
            for path in [
                "/v1/devices/phone-8/plan?lat=1&lon=2", "/v1/devices/phone%2D8/plan?lat=1&lon=2",
                "/v1/devices/phone-7%2F../settings", "/v1/devices/phone-/settings", "/v1/devices/phone-77/settings",
                "/v1/devices/Phone-7/settings",
            ] {
                #expect(try await h.call(.GET, path, key: phone).status == 403, "\(path)")
            }
            // The own id percent-encoded is the own id; an undecodable one is the route's 400.
            #expect(try await h.call(.GET, "/v1/devices/phone%2D7/settings", key: phone).status == 200)
            let undecodable = try await h.call(.GET, "/v1/devices/phone%ZZ/settings", key: phone)
            #expect(undecodable.status == 400 || undecodable.status == 403, "\(undecodable)")
            // Reports named in the message: the app routes check the device too.
            let t = Int(h.clock.date.timeIntervalSince1970)
            let osmand = try await Apps.send(
                h, .GET, "/v1/ingest/osmand?key=\(phone)&id=phone-8&lat=52.5&lon=13.4&timestamp=\(t)")
            #expect(osmand.status == 403, "\(osmand)")
            let owntracks = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks", body: #"{"_type":"location","lat":52.5,"lon":13.4,"tst":\#(t)}"#,
                headers: [Apps.basic("phone-8", phone), ("X-Limit-U", "phone-8"), ("X-Limit-D", "x")])
            #expect(owntracks.status == 403, "\(owntracks)")
            #expect(try await h.call(.GET, "/v1/devices/phone-8/state", key: admin).status == 404)
        }
    }

    @Test("a prefix-bound device key acts for the ids under its prefix only")
    func prefixBinding() async throws {
        try await Harness.run { h in
            let alice = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .prefix("alice/")))
            #expect(try await h.call(.GET, "/v1/devices/alice%2Fphone/settings", key: alice).status == 200)
            #expect(try await h.call(.GET, "/v1/devices/alice%2Fwatch/plan?lat=1&lon=2", key: alice).status == 200)
            #expect(try await h.call(.GET, "/v1/devices/alice/settings", key: alice).status == 403)
            #expect(try await h.call(.GET, "/v1/devices/bob%2Fphone/settings", key: alice).status == 403)
            #expect(try await h.call(.GET, "/v1/devices", key: alice).status == 403)
        }
    }

    @Test("the push-token family is the device key's at any depth and method, for its own device only")
    func pushTokenFamily() throws {
        let scope = KeyScope.device(devices: .device("phone-7"))
        for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch] {
            for path in [
                "/v1/devices/phone-7/push-tokens", "/v1/devices/phone-7/push-tokens/",
                "/v1/devices/phone-7/push-tokens/abc",
                "/v1/devices/phone%2D7/push-tokens/apns/abc",
            ] {
                #expect(throws: Never.self, "\(method) \(path)") { try scope.check(method, path: path) }
            }
            for path in [
                "/v1/devices/phone-8/push-tokens", "/v1/devices/phone-8/push-tokens/abc",
                "/v1/devices/phone-7/push-tokensX", "/v1/devices/phone-7/push", "/v2/devices/phone-7/push-tokens",
                "/v1/devices/push-tokens", "/v1/regions/phone-7/push-tokens",
            ] {
                #expect(throws: Problem.self, "\(method) \(path)") { try scope.check(method, path: path) }
            }
        }
        // Other scopes keep their rules there: an ingest key may not, a read key only reads.
        #expect(throws: Problem.self) {
            try KeyScope.ingest(devices: nil).check(.post, path: "/v1/devices/phone-7/push-tokens")
        }
        #expect(throws: Problem.self) { try KeyScope.read.check(.post, path: "/v1/devices/phone-7/push-tokens") }
        #expect(throws: Never.self) { try KeyScope.read.check(.get, path: "/v1/devices/phone-7/push-tokens") }
    }

    @Test("geofence device works with the phone's own device key")
    func deviceCommandWithDeviceKey() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            #expect(
                try await h.call(.POST, "/v1/regions/import", key: admin, body: PlanFixture.collection).status == 200)
            let phone = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("phone")))
            let fixes = Array(DeviceLoopTests.track(device: "phone").prefix(600))
            let summary = try await DeviceRun(server: "http://127.0.0.1:\(h.port)", key: phone, device: "phone").run(
                fixes)
            #expect(summary.errors.isEmpty && summary.plans.failures == 0, "\(summary.errors)")
            #expect(summary.plans.fetched >= 1 && summary.fixesReported == fixes.count)
            // The same key for another device's phone gets nowhere.
            let other = try await DeviceRun(server: "http://127.0.0.1:\(h.port)", key: phone, device: "van").run(
                Array(fixes.prefix(10)))
            #expect(other.fixesReported == 0 && other.plans.fetched == 0, "\(other.errors)")
        }
    }

    @Test("create-key makes device keys, always bound; their stored forms read back")
    func createKeyAndStoredForms() throws {
        func scope(_ arguments: [String]) throws -> KeyScope? {
            try (ServeCommand.parseAsRoot(["create-key", "--tenant", "acme"] + arguments) as? ServeCommand.CreateKey)?
                .keyScope()
        }
        #expect(try scope(["--scope", "device", "--device", "phone-7"]) == .device(devices: .device("phone-7")))
        #expect(try scope(["--scope", "device", "--device-prefix", "alice/"]) == .device(devices: .prefix("alice/")))
        #expect(throws: (any Error).self) { try scope(["--scope", "device"]) }
        #expect(throws: (any Error).self) { try scope(["--scope", "device", "--device", "a", "--device-prefix", "b"]) }
        for s: KeyScope in [.device(devices: .device("a:b/c")), .device(devices: .prefix("device:"))] {
            #expect(KeyScope(stored: s.description) == s, "\(s)")
        }
        #expect(KeyScope.device(devices: .device("p")).description == "device:device:p")
        for text in ["device", "device:", "device:device", "device:phone-7", "Device:device:p"] {
            #expect(KeyScope(stored: text) == nil, "\(text)")
        }
    }

    @Test("a device key's binding is normalized like the ids it is compared with")
    func bindingNormalized() async throws {
        try await Harness.run { h in
            // "é" composed (U+00E9) in the binding, decomposed (e + U+0301) in the request.
            let key = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("caf\u{E9}")))
            #expect(try await h.call(.GET, "/v1/devices/cafe%CC%81/settings", key: key).status == 200)
            await #expect(throws: (any Error).self) {
                try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("")))
            }
        }
    }
}
