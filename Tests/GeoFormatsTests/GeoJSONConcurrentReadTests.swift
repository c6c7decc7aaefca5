import Foundation
import Testing

@testable import GeoFormats

/// A large FeatureCollection read on several threads gives what one thread gives: the same
/// features, or the same error.
@Suite("GeoJSON regions on several threads")
struct GeoJSONConcurrentReadTests {
    /// `count` features: circles with awkward strings (brackets, braces, escaped quotes and
    /// backslashes in their properties), every seventh a polygon, `edit` applied to feature k.
    func collection(
        _ count: Int, before: String = #""name":"a [fleet] {city}","#, after: String = #","bbox":[0,0,1,1]"#,
        edit: (Int, String) -> String = { $1 }
    ) -> String {
        var features: [String] = []
        for k in 0..<count {
            let lon = 10 + Double(k % 100) * 0.001
            let lat = 48 + Double(k / 100) * 0.001
            let feature =
                k % 7 == 3
                ? #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[\#(lon),\#(lat)],[\#(lon + 0.001),\#(lat)],[\#(lon),\#(lat + 0.001)],[\#(lon),\#(lat)]]]},"properties":{"id":"r\#(k)"}}"#
                : #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"id":"r\#(k)","radius":\#(50 + k % 400),"note":"]}\"[{\\","tags":[1,[2,{"x":"}"}]]}}"#
            features.append(edit(k, feature))
        }
        return "\u{FEFF}{\(before)\"type\":\"FeatureCollection\",\n \"features\" : [\n"
            + features.joined(separator: ",\n")
            + "\n]\(after)}\n"
    }

    func outcome(_ text: String, threads: Int) -> Result<[RegionFeature], GeoJSONError> {
        Result { () throws(GeoJSONError) in try GeoJSONRegionReader.read(bytes: Array(text.utf8), threads: threads) }
    }

    @Test("the same features as one thread, read in runs on 2, 3 and 8 threads")
    func sameFeatures() throws {
        let text = collection(2_500)
        let one = try GeoJSONRegionReader.read(bytes: Array(text.utf8))
        #expect(one.count == 2_500 && one[3].id == "r3" && one[4].metadata["note"] == #"]}"[{\"#)
        #expect(GeoJSONRegionReader.concurrentRead(Array(text.utf8), threads: 3)?.count == 2_500)
        for threads in [2, 3, 8] { #expect(try outcome(text, threads: threads).get() == one) }
        // Top-level keys in any order, none around the features.
        let bare = collection(1_200, before: "", after: "")
        #expect(GeoJSONRegionReader.concurrentRead(Array(bare.utf8), threads: 2) != nil)
        #expect(try outcome(bare, threads: 2).get() == GeoJSONRegionReader.read(bytes: Array(bare.utf8)))
    }

    @Test("every problem gives the error one thread gives, naming the same feature or line")
    func sameErrors() {
        let cases: [(String, String)] = [
            (
                "a bad radius in the last run",
                collection(2_000) {
                    $0 == 1_700 ? $1.replacingOccurrences(of: #""radius":"#, with: #""radius":-"#) : $1
                }
            ),
            (
                "a duplicate id across runs",
                collection(2_000) { $0 == 1_900 ? $1.replacingOccurrences(of: "r1900", with: "r10") : $1 }
            ),
            (
                "a duplicate id before a bad feature",
                collection(2_000) { k, f in
                    k == 1_200
                        ? f.replacingOccurrences(of: "r1200", with: "r1") : k == 1_800 ? "{\"type\":\"Feature\"}" : f
                }
            ),
            (
                "invalid JSON inside a feature",
                collection(2_000) { $0 == 1_500 ? $1.replacingOccurrences(of: "\"type\"", with: ",\"type\"") : $1 }
            ),
            ("a cut-off document", String(collection(2_000).dropLast(40))),
            ("garbage after the document", collection(2_000) + "]"),
            ("a Feature's type", collection(1_500).replacingOccurrences(of: "FeatureCollection", with: "Feature")),
            ("an unterminated string", collection(1_500) { $0 == 1_499 ? $1 + "\"" : $1 }),
        ]
        for (name, text) in cases {
            let one = outcome(text, threads: 1)
            #expect(throws: GeoJSONError.self, "\(name)") { try one.get() }
            #expect(GeoJSONRegionReader.concurrentRead(Array(text.utf8), threads: 2) == nil, "\(name)")
            for threads in [2, 5] { #expect(outcome(text, threads: threads) == one, "\(name)") }
        }
    }

    @Test("documents the scan does not cut up are read the ordinary way, with the same result")
    func unusualDocuments() throws {
        let cases: [(String, String)] = [
            ("two features keys, the last one wins", collection(1_500, after: #","features":[]"#)),
            ("an escaped key", collection(1_500).replacingOccurrences(of: "\"features\"", with: #""feat\u0075res""#)),
        ]
        for (name, text) in cases {
            #expect(GeoJSONRegionReader.concurrentRead(Array(text.utf8), threads: 2) == nil, "\(name)")
            #expect(try outcome(text, threads: 2).get() == GeoJSONRegionReader.read(bytes: Array(text.utf8)), "\(name)")
        }
    }

    @Test("nesting as deep as the parser allows inside a feature: read alike; one level deeper: the same error")
    func depthLimit() {
        // Root object, features array, feature, properties: 4 levels before the property's arrays.
        for depth in [JSONParser.maximumDepth - 4, JSONParser.maximumDepth - 3] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let text = collection(1_100) {
                $0 == 600 ? $1.replacingOccurrences(of: "\"tags\":", with: "\"deep\":\(nested),\"tags\":") : $1
            }
            let one = outcome(text, threads: 1)
            #expect(outcome(text, threads: 2) == one)
            let readable = (try? one.get()) != nil
            #expect(readable == (depth == JSONParser.maximumDepth - 4))
        }
    }

    @Test("a file is read alike: the same features, or the same unreadable-file error")
    func fromFile() throws {
        let path = NSTemporaryDirectory() + "concurrent-\(UInt32.random(in: 0...UInt32.max)).geojson"
        try collection(1_300).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try GeoJSONRegionReader.read(path: path, threads: 2) == GeoJSONRegionReader.read(path: path))
        #expect(throws: GeoJSONError.self) { try GeoJSONRegionReader.read(path: path + ".missing", threads: 2) }
    }
}
