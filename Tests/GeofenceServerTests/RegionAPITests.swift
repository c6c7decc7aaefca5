import Foundation
import GeofenceServer
import Testing

@Suite("Regions over HTTP")
struct RegionAPITests {
    @Test("create, get, replace, list with paging, delete", arguments: StoreKind.allCases)
    func crud(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let created = try await h.call(
                .POST, "/v1/regions", key: key,
                body: circleFeature("a", lat: 31.2, lon: 121.5, radius: 150, extra: #","dwell":300,"owner":"ops""#))
            #expect(created.status == 201, "\(created)")
            #expect(created["properties"]?["dwell"]?.number == 300)
            #expect(created["properties"]?["owner"]?.string == "ops")
            let again = try await h.call(
                .POST, "/v1/regions", key: key, body: circleFeature("a", lat: 31.2, lon: 121.5, radius: 150))
            #expect(again.status == 409, "\(again)")

            let got = try await h.call(.GET, "/v1/regions/a", key: key)
            #expect(got.status == 200)
            #expect(got["geometry"]?["coordinates"] == .array([.number(121.5), .number(31.2)]))
            #expect(got["properties"]?["radius"]?.number == 150)

            let polygon =
                #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[121.0,31.0],[121.1,31.0],[121.1,31.1],[121.0,31.1],[121.0,31.0]]]},"properties":{"notifyOnExit":false}}"#
            let put = try await h.call(.PUT, "/v1/regions/a", key: key, body: polygon)
            #expect(put.status == 200, "\(put)")
            #expect(try await h.call(.GET, "/v1/regions/a", key: key)["geometry"]?["type"]?.string == "Polygon")
            #expect(try await h.call(.PUT, "/v1/regions/b", key: key, body: polygon).status == 201)
            for id in ["c", "d", "e"] {
                #expect(
                    try await h.call(
                        .PUT, "/v1/regions/\(id)", key: key, body: circleFeature(id, lat: 31, lon: 121, radius: 100)
                    ).status == 201)
            }
            let p1 = try await h.call(.GET, "/v1/regions?limit=2", key: key)
            #expect(p1["regions"]?.array?.compactMap { $0["id"]?.string } == ["a", "b"])
            #expect(p1["next"]?.string == "b")
            let p2 = try await h.call(.GET, "/v1/regions?limit=2&after=b", key: key)
            #expect(p2["regions"]?.array?.compactMap { $0["id"]?.string } == ["c", "d"])
            let p3 = try await h.call(.GET, "/v1/regions?limit=2&after=d", key: key)
            #expect(p3["regions"]?.array?.compactMap { $0["id"]?.string } == ["e"])
            #expect(p3["next"] == .null)

            #expect(try await h.call(.DELETE, "/v1/regions/c", key: key).status == 204)
            #expect(try await h.call(.DELETE, "/v1/regions/c", key: key).status == 404)
            #expect(try await h.call(.GET, "/v1/regions/c", key: key).status == 404)
        }
    }

    @Test("bulk import of a FeatureCollection is all or nothing", arguments: StoreKind.allCases)
    func bulkImport(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let features = (0..<500).map { circleFeature("r\($0)", lat: 30 + Double($0) * 0.01, lon: 120, radius: 200) }
            let body = #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
            let r = try await h.call(.POST, "/v1/regions/import", key: key, body: body)
            #expect(r.status == 200, "\(r)")
            #expect(r["imported"]?.number == 500)
            #expect(r["created"]?.number == 500)
            let page = try await h.call(.GET, "/v1/regions?limit=1000", key: key)
            #expect(page["regions"]?.array?.count == 500)

            // One bad feature: 400 naming it, and nothing of the batch stored.
            let bad = [
                circleFeature("new-1", lat: 10, lon: 10, radius: 5),
                circleFeature("new-2", lat: 10, lon: 10, radius: -5),
            ]
            let r2 = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(bad.joined(separator: ","))]}"#)
            #expect(r2.status == 400)
            #expect(r2["field"]?.string == "features[1].properties.radius")
            #expect(try await h.call(.GET, "/v1/regions/new-1", key: key).status == 404)

            // Duplicate ids in one import.
            let dup = [
                circleFeature("x", lat: 10, lon: 10, radius: 5), circleFeature("x", lat: 11, lon: 10, radius: 5),
            ]
            let r3 = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(dup.joined(separator: ","))]}"#)
            #expect(r3.status == 400)
            #expect(r3["field"]?.string == "features[1].properties.id")
        }
    }

    @Test("nearby returns the nearest regions first, with the re-plan radius", arguments: StoreKind.allCases)
    func nearby(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            // 30 circles of 100 m, 1 km apart going north from (31, 121).
            let features = (0..<30).map { circleFeature("n\($0)", lat: 31 + Double($0) * 0.009, lon: 121, radius: 100) }
            _ = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
            let r = try await h.call(.GET, "/v1/regions/nearby?lat=31&lon=121&limit=5", key: key)
            #expect(r.status == 200, "\(r)")
            let ids = r["regions"]?.array?.compactMap { $0["id"]?.string }
            #expect(ids == ["n0", "n1", "n2", "n3", "n4"])
            #expect(r["regions"]?.array?.first?["distanceMeters"]?.number == 0)
            let d4 = try #require(r["regions"]?.array?.last?["distanceMeters"]?.number)
            #expect(abs(d4 - (4 * 998 - 100)) < 20) // ≈ 4 × 0.009° of latitude − radius
            #expect(abs((r["replanRadiusMeters"]?.number ?? 0) - d4) <= 1)
            let stable = try #require(r["stableRadiusMeters"]?.number)
            #expect(abs(stable - 499) < 10)
            let bad = try await h.call(.GET, "/v1/regions/nearby?lat=91&lon=121", key: key)
            #expect(bad.status == 400)
            #expect(bad["field"]?.string == "lat")
        }
    }
}
