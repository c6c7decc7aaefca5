// Series expansions for the geodesic problem on an ellipsoid of revolution, to order 6 in
// the small parameters n (third flattening) and ε, as published in
// C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013), eqs. (17),
// (18), (20), (21), (24), (25) and the coefficient tables of its online addenda
// (GeographicLib "geodesic.c" documents the same expansions). Truncation error for WGS84
// is below 15 nm in distance (Karney 2013, §9).
//
//   A1 = (1 + ε²/4 + ε⁴/64 + ε⁶/256) / (1 − ε)                    (17)
//   C1l: I1(σ) = A1 (σ + Σ C1l sin 2lσ)                           (15, 18)
//   C1'l: inverse series τ → σ                                     (20, 21)
//   A2 = (1 − 3ε²/4 − 7ε⁴/64 − 11ε⁶/256) / (1 + ε)                (42)
//   C2l: I2(σ) = A2 (σ + Σ C2l sin 2lσ)                           (43)
//   A3, C3l (polynomials in n and ε): I3(σ) = A3 (σ + Σ C3l sin 2lσ)   (24, 25)

/// Six coefficients `c1 … c6` of a trigonometric series `Σ cₗ sin(2lσ)`.
struct SineSeries6 {
    var c1 = 0.0, c2 = 0.0, c3 = 0.0, c4 = 0.0, c5 = 0.0, c6 = 0.0

    /// Σ cₗ sin(2lσ) for σ given by its sine and cosine, by Clenshaw summation.
    @inline(__always)
    func sum(sin s: Double, cos c: Double) -> Double {
        let ar = 2 * (c - s) * (c + s) // 2 cos 2σ
        var y0 = 0.0
        var y1 = 0.0
        y1 = ar * y0 - y1 + c6
        y0 = ar * y1 - y0 + c5
        y1 = ar * y0 - y1 + c4
        y0 = ar * y1 - y0 + c3
        y1 = ar * y0 - y1 + c2
        y0 = ar * y1 - y0 + c1
        return 2 * s * c * y0 // sin 2σ · y0
    }
}

/// A1 − 1 as a function of ε (Karney 2013, eq. 17).
@inline(__always)
func a1m1(_ eps: Double) -> Double {
    let e2 = eps * eps
    let t = e2 * (e2 * (e2 + 4) + 64) / 256
    return (t + eps) / (1 - eps)
}

/// C1l, l = 1…6 (Karney 2013, eq. 18).
@inline(__always)
func c1Series(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps
    var d = eps
    var c = SineSeries6()
    c.c1 = d * ((6 - e2) * e2 - 16) / 32
    d *= eps
    c.c2 = d * ((64 - 9 * e2) * e2 - 128) / 2048
    d *= eps
    c.c3 = d * (9 * e2 - 16) / 768
    d *= eps
    c.c4 = d * (3 * e2 - 5) / 512
    d *= eps
    c.c5 = d * -7 / 1280
    d *= eps
    c.c6 = d * -7 / 2048
    return c
}

/// C1'l, l = 1…6: coefficients of the reverted series σ(τ) (Karney 2013, eq. 21).
@inline(__always)
func c1pSeries(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps
    var d = eps
    var c = SineSeries6()
    c.c1 = d * (e2 * (205 * e2 - 432) + 768) / 1536
    d *= eps
    c.c2 = d * (e2 * (4005 * e2 - 4736) + 3840) / 12288
    d *= eps
    c.c3 = d * (116 - 225 * e2) / 384
    d *= eps
    c.c4 = d * (2695 - 7173 * e2) / 7680
    d *= eps
    c.c5 = d * 3467 / 7680
    d *= eps
    c.c6 = d * 38081 / 61440
    return c
}

/// A2 − 1 as a function of ε (Karney 2013, eq. 42).
@inline(__always)
func a2m1(_ eps: Double) -> Double {
    let e2 = eps * eps
    let t = e2 * (e2 * (-11 * e2 - 28) - 192) / 256
    return (t - eps) / (1 + eps)
}

/// C2l, l = 1…6 (Karney 2013, eq. 43).
@inline(__always)
func c2Series(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps
    var d = eps
    var c = SineSeries6()
    c.c1 = d * (e2 * (e2 + 2) + 16) / 32
    d *= eps
    c.c2 = d * (e2 * (35 * e2 + 64) + 384) / 2048
    d *= eps
    c.c3 = d * (15 * e2 + 80) / 768
    d *= eps
    c.c4 = d * (7 * e2 + 35) / 512
    d *= eps
    c.c5 = d * 63 / 1280
    d *= eps
    c.c6 = d * 77 / 2048
    return c
}

/// The n-dependent parts of A3 and C3l, evaluated once per ellipsoid (Karney 2013, eqs. 24
/// and 25): each coefficient of εʲ is a polynomial in n.
struct ThirdIntegralCoefficients: Sendable, Hashable {
    // A3 = 1 + a1 ε + a2 ε² + a3 ε³ + a4 ε⁴ + a5 ε⁵
    var a1, a2, a3, a4, a5: Double
    // C3l = Σ_{j=l}^{5} c_{l,j} ε^j
    var c11, c12, c13, c14, c15: Double
    var c22, c23, c24, c25: Double
    var c33, c34, c35: Double
    var c44, c45: Double
    var c55: Double

    init(n: Double) {
        a1 = (n - 1) / 2
        a2 = ((3 * n - 1) * n - 2) / 8
        a3 = ((-n - 3) * n - 1) / 16
        a4 = (-2 * n - 3) / 64
        a5 = -3.0 / 128
        c11 = (1 - n) / 4
        c12 = (1 - n * n) / 8
        c13 = ((3 - n) * n + 3) / 64
        c14 = (2 * n + 5) / 128
        c15 = 3.0 / 128
        c22 = ((n - 3) * n + 2) / 32
        c23 = ((-3 * n - 2) * n + 3) / 64
        c24 = (n + 3) / 128
        c25 = 5.0 / 256
        c33 = ((5 * n - 9) * n + 5) / 192
        c34 = (9 - 10 * n) / 384
        c35 = 7.0 / 512
        c44 = (7 - 14 * n) / 512
        c45 = 7.0 / 512
        c55 = 21.0 / 2560
    }

    /// A3(ε).
    @inline(__always)
    func a3(_ eps: Double) -> Double {
        1 + eps * (a1 + eps * (a2 + eps * (a3 + eps * (a4 + eps * a5))))
    }

    /// C3l(ε), l = 1…5 (c6 = 0).
    @inline(__always)
    func c3(_ eps: Double) -> SineSeries6 {
        var c = SineSeries6()
        var m = eps
        c.c1 = m * (c11 + eps * (c12 + eps * (c13 + eps * (c14 + eps * c15))))
        m *= eps
        c.c2 = m * (c22 + eps * (c23 + eps * (c24 + eps * c25)))
        m *= eps
        c.c3 = m * (c33 + eps * (c34 + eps * c35))
        m *= eps
        c.c4 = m * (c44 + eps * c45)
        m *= eps
        c.c5 = m * c55
        return c
    }
}
