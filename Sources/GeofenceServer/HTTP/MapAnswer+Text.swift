import Geofencing

/// Each region's GeoJSON feature as `GET /v1/regions/map` answers it, encoded on first use and
/// kept until the region changes (``RegionCatalog`` forgets a region's text on every upsert
/// and delete, and all of them on a reload). A map read then copies bytes instead of building
/// and printing a JSON tree per region — most of its CPU time, which fix ingestion on the same
/// cores paid for.
///
/// Bounded: past ``capacity`` texts the cache starts over (about 200 bytes a circle).
struct FeatureText {
    static let capacity = 20_000
    private var texts: [String: [UInt8]] = [:]

    mutating func forget(_ id: String) { texts[id] = nil }

    /// `region`'s feature text (``RegionJSON/feature(_:)``, compact, keys sorted).
    mutating func text(of region: Region) -> [UInt8] {
        if let t = texts[region.identifier] { return t }
        if texts.count >= Self.capacity { texts.removeAll(keepingCapacity: true) }
        let t = Array(RegionJSON.feature(region).description.utf8)
        texts[region.identifier] = t
        return t
    }
}

extension MapAnswer {
    /// The answer's JSON text, written without a tree: the same document as ``json`` (keys
    /// sorted, the same numbers), the regions' features from `texts`.
    func text(_ texts: inout FeatureText) -> [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .regions(let regions):
            out.reserveCapacity(64 + regions.count * 200)
            out += Array(#"{"clusters":[],"matched":\#(regions.count),"regions":["#.utf8)
            for (i, r) in regions.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out += texts.text(of: r)
            }
            out += Array("]}".utf8)
        case .clusters(let clusters, let level):
            // Written as text (the tree's dictionaries, sorted per object, cost more than the
            // printing); a cluster's numbers are few, so String's appends are cheap enough here.
            var text = #"{"cellDegrees":\#(ServerJSON.number(RegionMapIndex.cellDegrees(level))),"clusters":["#
            text.reserveCapacity(96 + clusters.count * 110)
            var matched = 0
            for (i, c) in clusters.enumerated() {
                matched += c.count
                text += i > 0 ? #",{"bbox":["# : #"{"bbox":["#
                text += Self.micro(c.west)
                text += ","
                text += Self.micro(c.south)
                text += ","
                text += Self.micro(c.east)
                text += ","
                text += Self.micro(c.north)
                text +=
                    #"],"count":\#(c.count),"latitude":\#(Self.micro(c.latitude)),"longitude":\#(Self.micro(c.longitude))}"#
            }
            text += #"],"matched":\#(matched),"regions":[]}"#
            out = Array(text.utf8)
        }
        return out
    }

    /// `x` rounded to 10⁻⁶, as ``json`` prints it.
    static func micro(_ x: Double) -> String { ServerJSON.number((x * 1e6).rounded() / 1e6).description }
}
