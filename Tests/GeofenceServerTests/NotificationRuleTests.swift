import Foundation
import Geofencing
import Testing

@testable import GeofenceServer

/// The parts of notifications that need no server: templates, rules and their payload bound,
/// device settings and quiet hours, tokens, the derived ids and the planner's decisions.
@Suite("Notification rules, templates, quiet hours and the planner")
struct NotificationRuleTests {
    static func rule(_ json: String) throws(Problem) -> NotificationRule {
        try NotificationRule.parse(try ServerJSON.parse(Data(json.utf8)), generatedID: "nr_test")
    }
    static func problem(_ json: String) -> Problem? {
        do {
            _ = try rule(json)
            return nil
        } catch { return error }
    }

    @Test("a template fills region, device and metadata values and keeps escaped braces")
    func templateFills() throws {
        let t = try NotificationTemplate(
            "{{Hi}} {device.id}: {region.name} ({region.id}, {region.metadata.floor}) {event.kind}{region.metadata.none}",
            field: "body")
        let values = TemplateValues(
            regionID: "bund", regionName: "The Bund", regionMetadata: ["floor": "2"], deviceID: "alice/phone",
            eventKind: "enter")
        #expect(t.render(values) == "{Hi} alice/phone: The Bund (bund, 2) enter")
    }

    @Test("unknown placeholders and unmatched braces are refused, naming the field")
    func templateRefusals() {
        for bad in ["{region.nam}", "{user.email}", "{region.metadata.}", "{region.metadata.a b}", "{ x", "x }", "{}"] {
            #expect(throws: Problem.self, "\(bad)") { try NotificationTemplate(bad, field: "title") }
            do { _ = try NotificationTemplate(bad, field: "title") } catch { #expect(error.field == "title") }
        }
    }

    @Test("a value is cut to 64 scalars with an ellipsis, so the longest text is known")
    func valuesAreCut() throws {
        let t = try NotificationTemplate("{region.name}", field: "title")
        let long = String(repeating: "é", count: 500)
        let out = t.render(
            TemplateValues(regionID: "r", regionName: long, regionMetadata: [:], deviceID: "d", eventKind: "enter"))
        #expect(out.unicodeScalars.count == 64)
        #expect(out.hasSuffix("…"))
        #expect(NotificationTemplate.escapedBytes(out) <= t.maximumEscapedBytes)
        // The worst case: control characters, escaped as \u00XX.
        let controls = String(repeating: "\u{1}", count: 500)
        let worst = t.render(
            TemplateValues(regionID: "r", regionName: controls, regionMetadata: [:], deviceID: "d", eventKind: "x"))
        #expect(NotificationTemplate.escapedBytes(worst) <= t.maximumEscapedBytes)
    }

    @Test("a rule whose longest payload exceeds 4 KB is refused at rule time, naming the field")
    func payloadBound() throws {
        let many = String(repeating: "{region.metadata.note} ", count: 8)
        let p = try #require(Self.problem(#"{"events":["enter"],"title":"Hi","body":"\#(many)"}"#))
        #expect(p.field == "body")
        #expect(p.detail.contains("4096"))
        let ok = try Self.rule(#"{"events":["enter"],"title":"Welcome to {region.name}","body":"{device.id}"}"#)
        #expect(ok.payloadBound <= NotificationRule.payloadLimitBytes)
        #expect(ok.capHours == 12)
        #expect(ok.quietHours == .hold)
        #expect(ok.pushType == .alert)
        // A long literal text alone can exceed it too.
        let text = String(repeating: "x", count: 1_000)
        #expect(Self.problem(#"{"events":["enter"],"title":"\#(text)","body":"\#(text)"}"#)?.field == "body")
    }

    @Test("rule fields are checked, each problem naming its field")
    func ruleFields() {
        let cases: [(String, String)] = [
            (#"{"title":"x"}"#, "events"),
            (#"{"events":[],"title":"x"}"#, "events"),
            (#"{"events":["arrive"],"title":"x"}"#, "events[0]"),
            (#"{"events":["enter"]}"#, "title"),
            (#"{"events":["enter"],"pushType":"background","body":"x"}"#, "body"),
            (#"{"events":["enter"],"pushType":"loud","title":"x"}"#, "pushType"),
            (#"{"events":["enter"],"title":"x","capHours":-1}"#, "capHours"),
            (#"{"events":["enter"],"title":"x","capHours":1e9}"#, "capHours"),
            (#"{"events":["enter"],"title":"x","quietHours":"later"}"#, "quietHours"),
            (#"{"events":["enter"],"title":"x","tier":"middle"}"#, "tier"),
            (#"{"events":["enter"],"title":"x","regions":[]}"#, "regions"),
            (#"{"events":["enter"],"title":"x","regions":[7]}"#, "regions[0]"),
            (#"{"events":["enter"],"title":"x","id":""}"#, "id"),
            (#"[1]"#, "body"),
            (#"{"events":["enter"],"title":"x","capHour":1}"#, "capHour"),
        ]
        for (json, field) in cases {
            #expect(Self.problem(json)?.field == field, "\(json)")
        }
    }

    @Test("a rule selects by kind, ids, prefix, tier and source; all given must match")
    func ruleMatching() throws {
        let r = try Self.rule(
            #"{"events":["enter","dwell"],"regionPrefix":"shop-","tier":"child","source":"osm","title":"x"}"#)
        func facts(_ id: String, _ props: [String: ServerJSON]) -> RegionFacts {
            RegionFacts(id: id, feature: .object(["properties": .object(props)]))
        }
        let shop = facts("shop-1", ["parent": .string("mall"), "source": .string("osm")])
        #expect(r.matches(kind: .enter, region: shop))
        #expect(r.matches(kind: .dwell, region: shop))
        #expect(!r.matches(kind: .exit, region: shop))
        #expect(!r.matches(kind: .enter, region: facts("shop-1", ["source": .string("osm")]))) // top, not child
        #expect(!r.matches(kind: .enter, region: facts("shop-1", ["parent": .string("m"), "source": .string("x")])))
        #expect(!r.matches(kind: .enter, region: facts("cafe-1", ["parent": .string("m"), "source": .string("osm")])))
        let ids = try Self.rule(#"{"events":["exit"],"regions":["a","b"],"title":"x"}"#)
        #expect(ids.matches(kind: .exit, region: facts("b", [:])))
        #expect(!ids.matches(kind: .exit, region: facts("c", [:])))
        // Read back from its JSON, it is the same rule.
        #expect(try NotificationRule.parse(r.json, generatedID: "other") == r)
    }

    @Test("quiet hours in the device's time zone, over midnight, with the time they end")
    func quietHours() throws {
        let s = try DeviceNotificationSettings.parse(
            try ServerJSON.parse(
                Data(#"{"timeZone":"Asia/Shanghai","quietHours":{"start":"22:00","end":"07:00"}}"#.utf8)))
        // 2027-01-15T08:00:00Z is 16:00 in Shanghai: not quiet.
        let afternoon = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(s.quietHoursEnd(containing: afternoon) == nil)
        // 23:30 Shanghai (15:30Z): quiet until 07:00 the next day (23:00Z).
        let lateEvening = afternoon.addingTimeInterval(7.5 * 3_600)
        #expect(s.quietHoursEnd(containing: lateEvening) == afternoon.addingTimeInterval(15 * 3_600))
        // 01:00 Shanghai (17:00Z): quiet until 07:00 the same day.
        let night = afternoon.addingTimeInterval(9 * 3_600)
        #expect(s.quietHoursEnd(containing: night) == afternoon.addingTimeInterval(15 * 3_600))
        // 07:00 sharp: over.
        #expect(s.quietHoursEnd(containing: afternoon.addingTimeInterval(15 * 3_600)) == nil)
        #expect(try DeviceNotificationSettings.parse(s.json) == s)
    }

    @Test("settings refuse unknown time zones and malformed times, naming the field")
    func settingsRefusals() {
        let cases: [(String, String)] = [
            (#"{"timeZone":"Mars/Olympus"}"#, "timeZone"),
            (#"{"quietHours":{"start":"24:00","end":"07:00"}}"#, "quietHours.start"),
            (#"{"quietHours":{"start":"22:00","end":"7:00"}}"#, "quietHours.end"),
            (#"{"quietHours":{"start":"22:00"}}"#, "quietHours.end"),
            (#"{"optOut":"yes"}"#, "optOut"),
            (#"{"optout":true}"#, "optout"),
            (#"{"quietHours":{"start":"22:00","end":"07:00","days":[1]}}"#, "quietHours.days"),
        ]
        for (json, field) in cases {
            do {
                _ = try DeviceNotificationSettings.parse(try ServerJSON.parse(Data(json.utf8)))
                Issue.record("accepted \(json)")
            } catch { #expect(error.field == field, "\(json)") }
        }
    }

    @Test("tokens: APNs hex of 64 to 200 digits, FCM bounded, names checked")
    func tokens() throws {
        func parse(_ token: String, _ body: String) -> Problem? {
            do {
                _ = try PushToken.parse(token: token, body: try ServerJSON.parse(Data(body.utf8)), now: Date())
                return nil
            } catch { return error }
        }
        let apns = #"{"service":"apns","topic":"com.example.app","environment":"sandbox"}"#
        #expect(parse(String(repeating: "a", count: 64), apns) == nil)
        #expect(parse(String(repeating: "A", count: 200), apns) == nil)
        #expect(parse(String(repeating: "a", count: 63), apns)?.field == "token")
        #expect(parse(String(repeating: "a", count: 201), apns)?.field == "token")
        #expect(parse(String(repeating: "g", count: 64), apns)?.field == "token")
        #expect(parse(String(repeating: "a", count: 64), #"{"service":"apns","topic":"x"}"#)?.field == "environment")
        #expect(
            parse(String(repeating: "a", count: 64), #"{"service":"apns","topic":"a b","environment":"sandbox"}"#)?
                .field == "topic")
        let fcm = #"{"service":"fcm","project":"my-project"}"#
        #expect(parse("dGVzdA:APA91b-x_y.z", fcm) == nil)
        #expect(parse(String(repeating: "x", count: 4_097), fcm)?.field == "token")
        #expect(parse("a token", fcm)?.field == "token")
        #expect(parse("abc", #"{"service":"webpush"}"#)?.field == "service")
        #expect(parse("abc", #"{"service":"fcm","project":"p","bundle":"t"}"#)?.field == "bundle")
        // The same APNs token in upper case is the same token.
        let upper = try PushToken.parse(
            token: String(repeating: "AB", count: 32), body: try ServerJSON.parse(Data(apns.utf8)), now: Date())
        #expect(upper.token == String(repeating: "ab", count: 32))
    }

    @Test("the message id is a version-5 UUID of the event and token: stable, distinct per token")
    func messageIDs() {
        let a = NotificationID.messageID(eventID: "e1", token: "t1")
        #expect(a == NotificationID.messageID(eventID: "e1", token: "t1"))
        #expect(a != NotificationID.messageID(eventID: "e1", token: "t2"))
        #expect(a != NotificationID.messageID(eventID: "e1t", token: "1"))
        #expect(a.uuidString.dropFirst(14).first == "5")
        #expect("89AB".contains(a.uuidString.dropFirst(19).first!))
    }

    @Test("the planner: first matching rule, opt-out, cap and quiet hours hold or drop")
    func planner() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let event = OutboxEvent(id: "ev1", kind: .enter, device: "d1", region: "bund", time: now)
        let region = RegionFacts(id: "bund", feature: .object(["properties": .object(["name": .string("The Bund")])]))
        let token = PushToken(
            token: String(repeating: "a", count: 64), service: .apns(topic: "com.x", environment: .sandbox),
            registeredAt: now)
        let rules = [
            try Self.rule(#"{"id":"a","events":["exit"],"title":"bye"}"#),
            try Self.rule(#"{"id":"b","events":["enter"],"title":"Hi {region.name}"}"#),
            try Self.rule(#"{"id":"c","events":["enter"],"title":"never"}"#),
        ]
        var settings = DeviceNotificationSettings()
        typealias LocalTime = DeviceNotificationSettings.LocalTime
        func plan(last: Date? = nil, tokens: [PushToken]? = nil) -> NotificationPlan {
            NotificationPlanner.plan(
                event: event, rules: rules, region: region, settings: settings, tokens: tokens ?? [token],
                lastNotified: last, now: now)
        }
        let sent = plan()
        try #require(sent.notifications.count == 1)
        #expect(sent.notifications[0].ruleID == "b")
        #expect(sent.notifications[0].message.title == "Hi The Bund")
        #expect(sent.notifications[0].state == .pending(at: now))
        #expect(sent.notifications[0].message.expiresAt == now.addingTimeInterval(3_600))
        #expect(sent.capNotedAt == now)
        #expect(plan(tokens: []).notifications.isEmpty)
        // The cap: 11 h 59 min after the last one, dropped; 12 h after, sent.
        #expect(plan(last: now.addingTimeInterval(-(12 * 3_600 - 60))).notifications[0].state == .dropped("cap"))
        #expect(plan(last: now.addingTimeInterval(-12 * 3_600)).notifications[0].state == .pending(at: now))
        settings.optOut = true
        #expect(plan().notifications[0].state == .dropped("opted-out"))
        #expect(plan().capNotedAt == nil)
        settings.optOut = false
        settings.quietHours = (LocalTime("15:00")!, LocalTime("17:00")!) // UTC: 08:00 is outside
        #expect(plan().notifications[0].state == .pending(at: now))
        settings.quietHours = (LocalTime("07:00")!, LocalTime("09:00")!)
        #expect(plan().notifications[0].state == .pending(at: now.addingTimeInterval(3_600)))
        // Held until the quiet hours end, it expires an hour after that.
        #expect(plan().notifications[0].message.expiresAt == now.addingTimeInterval(7_200))
        let dropping = [try Self.rule(#"{"id":"q","events":["enter"],"title":"x","quietHours":"drop"}"#)]
        let dropped = NotificationPlanner.plan(
            event: event, rules: dropping, region: region, settings: settings, tokens: [token], lastNotified: nil,
            now: now)
        #expect(dropped.notifications[0].state == .dropped("quiet-hours"))
        #expect(dropped.capNotedAt == nil)
    }
}
