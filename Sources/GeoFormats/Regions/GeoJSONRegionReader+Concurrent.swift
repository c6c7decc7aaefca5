import Dispatch

extension GeoJSONRegionReader {
    /// Fewer features than this are read on one thread: a thousand circles parse in about
    /// 3 ms, less than it is worth cutting them up.
    static let concurrentMinimum = 1_000

    /// ``read(path:)`` with a FeatureCollection's features parsed on `threads` threads
    /// (``read(bytes:threads:)``).
    public static func read(path: String, threads: Int) throws(GeoJSONError) -> [RegionFeature] {
        try read(bytes: contents(of: path), threads: threads)
    }

    /// ``read(bytes:)`` on `threads` threads: a FeatureCollection's `features` array is cut
    /// into `threads` runs of whole features (``FeatureArraySplit``), each run parsed and
    /// checked on its own thread, and the document around them parsed alone. Gives what
    /// ``read(bytes:)`` gives: the same features, or the same error, for any problem found
    /// on the way sends the whole input through ``read(bytes:)``, which names it as always.
    /// O(n) in the input, as ``read(bytes:)``; a single Feature, a small collection or
    /// `threads` 1 is read on the calling thread.
    public static func read(bytes: [UInt8], threads: Int) throws(GeoJSONError) -> [RegionFeature] {
        guard threads > 1, let features = concurrentRead(bytes, threads: threads) else { return try read(bytes: bytes) }
        return features
    }

    /// The features of `input` read on `threads` threads, or nil where anything is amiss.
    static func concurrentRead(_ input: [UInt8], threads: Int) -> [RegionFeature]? {
        let start = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let split = input.withUnsafeBufferPointer({ FeatureArraySplit(scanning: $0, from: start) }),
            split.elements.count >= concurrentMinimum
        else { return nil }
        // The document without its features must be a FeatureCollection, and valid JSON.
        let skeleton = Array(input[start...split.open] + input[split.close...])
        guard let root = try? JSONParser.parse(skeleton), case .string("FeatureCollection")? = root["type"],
            root["features"]?.arrayValue?.isEmpty == true
        else { return nil }
        let parts = min(threads, split.elements.count)
        let runs = (0..<parts).map { k in
            split.elements.count * k / parts..<split.elements.count * (k + 1) / parts
        }
        let results = ConcurrentResults<[RegionFeature]>(count: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { k in
            results[k] = features(in: input, split.elements[runs[k]])
        }
        var out: [RegionFeature] = []
        out.reserveCapacity(split.elements.count)
        for k in 0..<parts {
            guard let run = results[k] else { return nil }
            out += run
        }
        var seen = Set<String>(minimumCapacity: out.count)
        for feature in out {
            guard seen.insert(feature.id).inserted else { return nil }
        }
        return out
    }

    /// The features whose JSON lies at `elements` (consecutive elements of the array), or
    /// nil if any is not valid JSON or not a valid feature.
    private static func features(in input: [UInt8], _ elements: ArraySlice<Range<Int>>) -> [RegionFeature]? {
        guard let first = elements.first, let last = elements.last else { return [] }
        // Wrapped as deep as in the document (an object's array), so the depth limit is the same.
        let text = Array("{\"f\":[".utf8) + input[first.lowerBound..<last.upperBound] + Array("]}".utf8)
        guard let values = (try? JSONParser.parse(text))?["f"]?.arrayValue, values.count == elements.count else {
            return nil
        }
        var out: [RegionFeature] = []
        out.reserveCapacity(values.count)
        for value in values {
            guard let parsed = try? feature(value) else { return nil }
            out.append(parsed)
        }
        return out
    }
}

/// One slot per task of a `concurrentPerform`, each written by its own task and read after
/// all have finished (the invariant that makes the unchecked `Sendable` hold).
private final class ConcurrentResults<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    subscript(k: Int) -> T? {
        get { slots[k] }
        set { slots[k] = newValue }
    }
}
