import Foundation
import Geodesy

// The hot loop of the planner: a static tree of spherical caps with a best-first
// k-nearest search. Invariants (relied on by `Catalogue` for exact answers):
//  * every item `i` is a cap (unit vector `c_i`, angle `a_i`) that contains its region, with
//    `a_i = boundRadius_i / lowerBoundRadius`;
//  * every node's cap contains the caps of all items below it:
//    `angle(node, c_i) + a_i <= rho(node)`;
//  * `lowerBoundRadius * angle(p, q)` never exceeds the WGS84 geodesic distance between p and q
//    (6,330 km is below the smallest radius of curvature, 6,335.4 km, with slack for the
//    sphere-to-ellipsoid latitude difference over catalogue distances),
//  so `lowerBoundRadius * (angle(q, node) - rho(node))` is a lower bound of the signed
//  boundary distance from q to every region below the node.

/// Unit vector on the sphere for a coordinate (geodetic latitude used as spherical latitude).
struct UnitVector: Sendable {
    var x: Double, y: Double, z: Double

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ c: Coordinate) {
        let φ = c.latitude * .pi / 180
        let λ = c.longitude * .pi / 180
        let cφ = cos(φ)
        self.init(x: cφ * cos(λ), y: cφ * sin(λ), z: sin(φ))
    }

    /// Central angle to `o`, radians, accurate for tiny angles (chord form).
    func angle(to o: UnitVector) -> Double {
        let dx = x - o.x
        let dy = y - o.y
        let dz = z - o.z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        return 2 * asin(min(1, chord / 2))
    }

    var normalized: UnitVector {
        let n = (x * x + y * y + z * z).squareRoot()
        return n > 0 ? UnitVector(x: x / n, y: y / n, z: z / n) : UnitVector(x: 1, y: 0, z: 0)
    }
}

/// Radius in metres of the sphere on which central angles underestimate WGS84 geodesic distances.
let lowerBoundRadius = 6_330_000.0

/// A static bounding-cap tree over items `0..<count`; see the invariants above.
///
/// Build: O(n log n) (median splits). k-nearest query: best-first, visiting roughly
/// O(log n + k) nodes for evenly spread data; the exact distance is asked only for items
/// whose cap bound can still beat the k-th best.
struct CapTree: Sendable {
    struct Node: Sendable {
        var center: UnitVector
        var rho: Double
        var lo: Int32, hi: Int32
        var left: Int32, right: Int32 // -1 for a leaf
    }

    static let leafSize = 8
    private(set) var nodes: [Node] = []
    /// Item ids in tree order; a leaf covers `order[lo..<hi]`.
    private(set) var order: [Int32] = []
    private(set) var centers: [UnitVector] = []
    private(set) var capAngles: [Double] = []
    /// Split keys during the build only.
    private var scratch: [Double] = []

    var count: Int { centers.count }

    init() {}

    /// Builds the tree over caps (centre, bounding radius in metres).
    init(centers: [UnitVector], boundRadii: [Double]) {
        precondition(centers.count == boundRadii.count)
        self.centers = centers
        self.capAngles = boundRadii.map { max(0, $0) / lowerBoundRadius }
        guard !centers.isEmpty else { return }
        order = (0..<Int32(centers.count)).map { $0 }
        nodes.reserveCapacity(2 * centers.count / CapTree.leafSize + 2)
        scratch = Array(repeating: 0, count: centers.count)
        _ = build(lo: 0, hi: centers.count)
        scratch = []
    }

    private mutating func build(lo: Int, hi: Int) -> Int32 {
        let index = Int32(nodes.count)
        nodes.append(
            Node(center: UnitVector(x: 1, y: 0, z: 0), rho: 0, lo: Int32(lo), hi: Int32(hi), left: -1, right: -1))
        if hi - lo <= CapTree.leafSize {
            var sx = 0.0
            var sy = 0.0
            var sz = 0.0
            for k in lo..<hi {
                let c = centers[Int(order[k])]
                sx += c.x
                sy += c.y
                sz += c.z
            }
            let center = UnitVector(x: sx, y: sy, z: sz).normalized
            var rho = 0.0
            for k in lo..<hi {
                let i = Int(order[k])
                rho = max(rho, center.angle(to: centers[i]) + capAngles[i])
            }
            nodes[Int(index)].center = center
            nodes[Int(index)].rho = rho * (1 + 1e-12) + 1e-12
            return index
        }
        // Split on the widest axis at the median.
        var mn = (Double.infinity, Double.infinity, Double.infinity)
        var mx = (-Double.infinity, -Double.infinity, -Double.infinity)
        for k in lo..<hi {
            let c = centers[Int(order[k])]
            mn = (min(mn.0, c.x), min(mn.1, c.y), min(mn.2, c.z))
            mx = (max(mx.0, c.x), max(mx.1, c.y), max(mx.2, c.z))
        }
        let ex = mx.0 - mn.0
        let ey = mx.1 - mn.1
        let ez = mx.2 - mn.2
        let axis = ex >= ey && ex >= ez ? 0 : (ey >= ez ? 1 : 2)
        let mid = (lo + hi) / 2
        // Keys of the range in a scratch buffer, then a closure-free quickselect on both arrays.
        for k in lo..<hi {
            let c = centers[Int(order[k])]
            scratch[k] = axis == 0 ? c.x : (axis == 1 ? c.y : c.z)
        }
        scratch.withUnsafeMutableBufferPointer { keys in
            order.withUnsafeMutableBufferPointer { ids in
                CapTree.select(keys: keys, ids: ids, lo: lo, hi: hi, nth: mid)
            }
        }
        let l = build(lo: lo, hi: mid)
        let r = build(lo: mid, hi: hi)
        let a = nodes[Int(l)]
        let b = nodes[Int(r)]
        let na = Double(mid - lo)
        let nb = Double(hi - mid)
        let center = UnitVector(
            x: a.center.x * na + b.center.x * nb,
            y: a.center.y * na + b.center.y * nb,
            z: a.center.z * na + b.center.z * nb
        ).normalized
        let rho = max(center.angle(to: a.center) + a.rho, center.angle(to: b.center) + b.rho)
        nodes[Int(index)].center = center
        nodes[Int(index)].rho = rho * (1 + 1e-12) + 1e-12
        nodes[Int(index)].left = l
        nodes[Int(index)].right = r
        return index
    }

    /// Quickselect (Hoare partition, middle pivot): puts the `nth` smallest key of `lo..<hi`
    /// at `nth`, smaller ones before it, larger ones after; `ids` moves with `keys`.
    private static func select(
        keys: UnsafeMutableBufferPointer<Double>, ids: UnsafeMutableBufferPointer<Int32>,
        lo: Int, hi: Int, nth: Int
    ) {
        var lo = lo
        var hi = hi - 1
        while lo < hi {
            let pivot = keys[(lo + hi) / 2]
            var i = lo
            var j = hi
            while i <= j {
                while keys[i] < pivot { i += 1 }
                while keys[j] > pivot { j -= 1 }
                if i <= j {
                    keys.swapAt(i, j)
                    ids.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if nth <= j { hi = j } else if nth >= i { lo = i } else { return }
        }
    }

    /// Lower bound (metres) of the signed boundary distance from `q` to item `i`'s region.
    func itemLowerBound(_ i: Int, _ q: UnitVector) -> Double {
        lowerBoundRadius * (q.angle(to: centers[i]) - capAngles[i]) - 1e-3
    }

    /// The `k` items with the smallest exact signed distance, ascending, into `best`
    /// (which may already hold candidates from elsewhere and is kept sorted, at most `k` long).
    /// `exact(i)` returns the exact distance or nil to skip the item (removed, filtered).
    func nearest(
        to q: UnitVector, k: Int, into best: inout [(distance: Double, item: Int32)],
        exact: (Int32) -> Double?
    ) {
        guard k > 0, !nodes.isEmpty else { return }
        var heap = MinHeap()
        heap.push(bound(0, q), 0)
        while let (lb, n) = heap.pop() {
            if best.count == k, lb >= best[k - 1].distance { break }
            let node = nodes[Int(n)]
            if node.left < 0 {
                for slot in Int(node.lo)..<Int(node.hi) {
                    let id = order[slot]
                    if best.count == k, itemLowerBound(Int(id), q) >= best[k - 1].distance { continue }
                    guard let d = exact(id) else { continue }
                    CapTree.insert((d, id), into: &best, k: k)
                }
            } else {
                heap.push(bound(Int(node.left), q), node.left)
                heap.push(bound(Int(node.right), q), node.right)
            }
        }
    }

    func bound(_ n: Int, _ q: UnitVector) -> Double {
        let node = nodes[n]
        return lowerBoundRadius * (q.angle(to: node.center) - node.rho) - 1e-3
    }

    static func insert(_ e: (distance: Double, item: Int32), into best: inout [(distance: Double, item: Int32)], k: Int)
    {
        if best.count == k {
            guard e.distance < best[k - 1].distance else { return }
            best.removeLast()
        }
        var i = best.count
        while i > 0, best[i - 1].distance > e.distance { i -= 1 }
        best.insert(e, at: i)
    }
}

/// A binary min-heap of (key, node) pairs.
struct MinHeap {
    private var keys: [Double] = []
    private var values: [Int32] = []

    init() {
        keys.reserveCapacity(64)
        values.reserveCapacity(64)
    }

    mutating func push(_ key: Double, _ value: Int32) {
        keys.append(key)
        values.append(value)
        var i = keys.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if keys[p] <= keys[i] { break }
            keys.swapAt(p, i)
            values.swapAt(p, i)
            i = p
        }
    }

    mutating func pop() -> (Double, Int32)? {
        guard let top = keys.first else { return nil }
        let v = values[0]
        let lastK = keys.removeLast()
        let lastV = values.removeLast()
        if !keys.isEmpty {
            keys[0] = lastK
            values[0] = lastV
            var i = 0
            let n = keys.count
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < n, keys[l] < keys[m] { m = l }
                if r < n, keys[r] < keys[m] { m = r }
                if m == i { break }
                keys.swapAt(m, i)
                values.swapAt(m, i)
                i = m
            }
        }
        return (top, v)
    }
}
