import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("GeoJSON region properties: tiers, triggers, sources")
struct GeoJSONRegionPropertyTests {
    private func feature(_ properties: String, id: String = "city-1") -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.2]},"properties":{"id":"\#(id)","radius":500\#(properties)}}"#
    }

    private func problem(_ properties: String) -> GeoJSONError.FeatureProblem? {
        do {
            _ = try GeoJSONRegionReader.read(string: feature(properties))
            return nil
        } catch {
            if case .invalidFeature(_, let p) = error { return p }
            return nil
        }
    }

    @Test func tierTriggerAndSourcePropertiesAreReadAndNotKeptAsMetadata() throws {
        let r = try GeoJSONRegionReader.read(
            string: feature(
                #","parent":"province-a","source":"gov","initialTrigger":["dwell","enter"],"notifyOnExit":false,"dwell":60,"name":"X""#
            ))[0]
        #expect(r.parent == "province-a")
        #expect(r.source == "gov")
        #expect(r.initialTrigger == [.enter, .dwell])
        #expect(!r.notifyOnExit && r.notifyOnEntry && r.dwell == 60)
        #expect(r.metadata == ["name": "X"])
    }

    @Test func absentOrNullPropertiesMeanTopTierNoSourceNoInitialEvents() throws {
        let r = try GeoJSONRegionReader.read(string: feature(#","parent":null,"initialTrigger":[]"#))[0]
        #expect(r.parent == nil && r.source == nil && r.initialTrigger.isEmpty)
    }

    @Test func writerWritesThePropertiesBackAndTheReaderReadsThemAgain() throws {
        let r = RegionFeature(
            id: "d-7", geometry: .circle(center: Coordinate(uncheckedLatitude: 1, longitude: 2), radius: 30),
            initialTrigger: [.exit, .enter], parent: "city-1", source: "acme_2")
        let text = GeoJSONWriter.featureCollection([r])
        #expect(text.contains(#""initialTrigger":["enter","exit"]"#))
        #expect(text.contains(#""parent":"city-1""#) && text.contains(#""source":"acme_2""#))
        #expect(try GeoJSONRegionReader.read(string: text) == [r])
    }

    @Test func badInitialTriggersAreTypedErrorsNamingTheProperty() {
        #expect(
            problem(#","initialTrigger":"enter""#)
                == .invalidProperty(name: "initialTrigger", expected: #"array of "enter", "exit", "dwell""#))
        #expect(
            problem(#","initialTrigger":[1]"#)
                == .invalidProperty(name: "initialTrigger", expected: #"array of "enter", "exit", "dwell""#))
        #expect(
            problem(#","initialTrigger":["arrive"]"#)
                == .invalidInitialTrigger(#"names "arrive", expected "enter", "exit" or "dwell""#))
        #expect(problem(#","initialTrigger":["ENTER"]"#) != nil)
        #expect(problem(#","initialTrigger":["exit","exit"]"#) == .invalidInitialTrigger(#"names "exit" twice"#))
    }

    @Test func badParentsAreTypedErrors() {
        #expect(problem(#","parent":"""#) == .invalidParent("is empty"))
        #expect(problem(#","parent":"city-1""#) == .invalidParent("names the region itself"))
        #expect(problem(#","parent":7"#) == .invalidProperty(name: "parent", expected: "string"))
        #expect(problem(#","parent":["a"]"#) == .invalidProperty(name: "parent", expected: "string"))
    }

    @Test func badSourcesAreTypedErrors() {
        #expect(problem(#","source":"""#) == .invalidSource("is empty"))
        #expect(problem(#","source":"acme.""#) == .invalidSource("may hold only A–Z, a–z, 0–9, '-' and '_'"))
        #expect(problem(#","source":"a b""#) != nil)
        #expect(
            problem(#","source":"\#(String(repeating: "x", count: 33))""#)
                == .invalidSource("is longer than 32 characters"))
        #expect(problem(#","source":true"#) == .invalidProperty(name: "source", expected: "string"))
        #expect(problem(#","source":"\#(String(repeating: "x", count: 32))""#) == nil)
    }

    @Test func errorMessagesNameThePropertyAndTheFeature() {
        do {
            _ = try GeoJSONRegionReader.read(
                string: #"{"type":"FeatureCollection","features":[\#(feature(#","initialTrigger":["soon"]"#))]}"#)
        } catch {
            #expect("\(error)" == #"feature 0: initialTrigger names "soon", expected "enter", "exit" or "dwell""#)
        }
    }
}
