#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Exact-angle helpers in degrees, after the techniques of Karney (2013, §2 and the
// GeographicLib documentation): reduce the angle exactly (remainder by 90° is exact in
// binary floating point) before converting to radians, so that e.g. sin(180°) is exactly 0.

@usableFromInline let degreesToRadians = Double.pi / 180

/// `x` reduced to [-180, 180] by an exact remainder; skips the (slow) libm call when `x` is
/// already in range, where the remainder is `x` itself.
@inline(__always)
func reduce360(_ x: Double) -> Double {
    abs(x) <= 180 ? x : x.remainder(dividingBy: 360)
}

/// Quarter-turn reduction: `x = q·90 + r` with `r` in [-45, 45], exact.
@inline(__always)
func quarterReduce(_ x: Double) -> (r: Double, q: Int) {
    var r = reduce360(x) // exact, in [-180, 180]
    let q = (r / 90).rounded(.toNearestOrEven) // -2 ... 2
    r -= q * 90 // exact (Sterbenz)
    return (r, Int(q))
}

@inline(__always)
func quadrantRotate(_ s: Double, _ c: Double, _ q: Int) -> (sin: Double, cos: Double) {
    switch q & 3 {
    case 0: return (s, c)
    case 1: return (c, -s)
    case 2: return (-s, -c)
    default: return (-c, s)
    }
}

/// sin and cos of an angle in degrees, exact at multiples of 90°.
@inline(__always)
func sincosDegrees(_ x: Double) -> (sin: Double, cos: Double) {
    let (r, q) = quarterReduce(x)
    let rr = r * degreesToRadians
    var (s, c) = quadrantRotate(sin(rr), cos(rr), q)
    c += 0 // -0 → +0
    if s == 0 { s = Double(signOf: x, magnitudeOf: 0) }
    return (s, c)
}

/// sin and cos of `x + t` (degrees) where `t` is a small correction to `x`.
@inline(__always)
func sincosDegrees(_ x: Double, correction t: Double) -> (sin: Double, cos: Double) {
    let (r0, q) = quarterReduce(x)
    let r = roundAngle(r0 + t) * degreesToRadians
    var (s, c) = quadrantRotate(sin(r), cos(r), q)
    c += 0
    if s == 0 { s = Double(signOf: x, magnitudeOf: 0) }
    return (s, c)
}

/// atan2 in degrees, result in [-180, 180], exact for the axis directions.
@inline(__always)
func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    var x = x
    var y = y
    var q = 0
    if abs(y) > abs(x) {
        swap(&x, &y)
        q = 2
    }
    if x.sign == .minus {
        x = -x
        q += 1
    }
    var ang = atan2(y, x) / degreesToRadians
    switch q {
    case 1: ang = Double(signOf: y, magnitudeOf: 180) - ang
    case 2: ang = 90 - ang
    case 3: ang = -90 + ang
    default: break
    }
    return ang
}

/// Rounds tiny angles towards zero so that values below about 1/16 ulp of 1 become exact;
/// this keeps nearly-equatorial points from producing spurious non-zero latitudes.
@inline(__always)
func roundAngle(_ x: Double) -> Double {
    let z = 1.0 / 16
    var y = abs(x)
    let w = z - y
    y = w > 0 ? z - w : y
    return Double(signOf: x, magnitudeOf: y)
}

/// `x` reduced to [-180, 180] (±180 keeps the sign of `x`).
@inline(__always)
func normalizeAngle(_ x: Double) -> Double {
    let y = reduce360(x)
    return abs(y) == 180 ? Double(signOf: x, magnitudeOf: 180) : y
}

/// Error-free sum: `u + v = s + t` exactly.
@inline(__always)
func twoSum(_ u: Double, _ v: Double) -> (s: Double, t: Double) {
    let s = u + v
    var up = s - v
    var vpp = s - up
    up -= u
    vpp -= v
    let t = s != 0 ? 0 - (up + vpp) : s
    return (s, t)
}

/// The difference `y − x` in degrees reduced to [-180, 180], as `d + e` with `e` the
/// rounding error, computed exactly.
@inline(__always)
func angleDifference(_ x: Double, _ y: Double) -> (d: Double, e: Double) {
    let first = twoSum(reduce360(-x), reduce360(y))
    var (d, t) = twoSum(reduce360(first.s), first.t)
    if d == 0 || abs(d) == 180 {
        d = Double(signOf: t == 0 ? y - x : -t, magnitudeOf: d)
    }
    return (d, t)
}

/// Normalises (s, c) to unit length.
@inline(__always)
func normalize(_ s: inout Double, _ c: inout Double) {
    let r = (s * s + c * c).squareRoot() // s, c are O(1): no overflow or underflow
    s /= r
    c /= r
}

/// √(x² + y²) for arguments of order 1 (no scaling needed).
@inline(__always) func hypotenuse(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
