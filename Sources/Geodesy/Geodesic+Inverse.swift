#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The inverse problem (Karney 2013, §4): given two points, find the shortest geodesic.
// Points are first brought to a canonical configuration (lat1 ≤ 0, lat1 ≤ lat2 ≤ −lat1,
// 0 ≤ lon12 ≤ 180); meridional and equatorial geodesics are solved directly; otherwise the
// azimuth α1 at the first point is found by solving λ12(α1) = λ12 with Newton's method
// (derivative from the reduced length, eq. 46), starting from a spherical or astroid
// estimate (§4, eqs. 55–64) and falling back to bisection of a bracket that always contains
// the root, so the iteration always terminates.

extension Geodesic {
    /// Solves the inverse problem: the shortest geodesic from `p1` to `p2`.
    ///
    /// Never fails for valid coordinates: coincident points give distance 0 and azimuths
    /// following the meridian; for exactly antipodal points (where many geodesics are
    /// shortest) one of them is returned.
    public func inverse(_ p1: Coordinate, _ p2: Coordinate) -> InverseSolution {
        inverse(
            latitude1: p1.latitude, longitude1: p1.longitude,
            latitude2: p2.latitude, longitude2: p2.longitude)
    }

    /// The inverse problem on raw degrees. Latitudes must be in [-90, 90] and all values
    /// finite (``Coordinate`` guarantees this); longitudes need not be normalised.
    public func inverse(
        latitude1 lat1In: Double, longitude1 lon1: Double,
        latitude2 lat2In: Double, longitude2 lon2: Double
    ) -> InverseSolution {
        let tiny = Tolerance.tiny
        let tol0 = Tolerance.tol0
        // Longitude difference, exactly, with its rounding error.
        var (lon12, lon12s) = angleDifference(lon1, lon2)
        var lonsign: Double = lon12.sign == .minus ? -1 : 1
        lon12 *= lonsign
        lon12s *= lonsign
        let lam12 = lon12 * degreesToRadians
        let (slam12, clam12) = sincosDegrees(lon12, correction: lon12s)
        lon12s = (180 - lon12) - lon12s // the supplementary longitude difference

        var lat1 = roundAngle(lat1In)
        var lat2 = roundAngle(lat2In)
        // Put the point with the larger |latitude| first.
        let swapp: Double = abs(lat1) < abs(lat2) ? -1 : 1
        if swapp < 0 {
            lonsign = -lonsign
            swap(&lat1, &lat2)
        }
        // Make lat1 ≤ −0.
        let latsign: Double = lat1.sign == .minus ? 1 : -1
        lat1 *= latsign
        lat2 *= latsign

        var (sbet1, cbet1) = sincosDegrees(lat1)
        sbet1 *= f1
        normalize(&sbet1, &cbet1)
        cbet1 = max(tiny, cbet1) // cbet1 = +ε at the poles
        var (sbet2, cbet2) = sincosDegrees(lat2)
        sbet2 *= f1
        normalize(&sbet2, &cbet2)
        cbet2 = max(tiny, cbet2)

        // Force bet2 = ±bet1 exactly when they are equal up to rounding.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: sbet1) }
        } else {
            if abs(sbet2) == -sbet1 { cbet2 = cbet1 }
        }

        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

        var salp1 = 0.0
        var calp1 = 0.0
        var salp2 = 0.0
        var calp2 = 0.0
        var sig12 = 0.0
        var s12x = 0.0
        var m12x = 0.0

        var meridian = lat1 == -90 || slam12 == 0
        if meridian {
            // Both points on one meridian (or through a pole): α1 = λ12, α2 = 0.
            calp1 = clam12
            salp1 = slam12
            calp2 = 1
            salp2 = 0
            let ssig1 = sbet1
            let csig1 = calp1 * cbet1
            let ssig2 = sbet2
            let csig2 = calp2 * cbet2
            sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2) + 0, csig1 * csig2 + ssig1 * ssig2)
            let l = lengths(
                eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                ssig2: ssig2, csig2: csig2, dn2: dn2)
            s12x = l.s12b
            m12x = l.m12b
            if sig12 < 1 || m12x >= 0 {
                if sig12 < 3 * tiny || (sig12 < tol0 && (s12x < 0 || m12x < 0)) {
                    sig12 = 0
                    m12x = 0
                    s12x = 0
                }
                m12x *= b
                s12x *= b
            } else {
                // m12 < 0: too close to antipodal for the meridian to be shortest.
                meridian = false
            }
        }

        if !meridian && sbet1 == 0 && (f <= 0 || lon12s >= f * 180) {
            // Both on the equator and the equator is the shortest path.
            calp1 = 0
            calp2 = 0
            salp1 = 1
            salp2 = 1
            s12x = a * lam12
            sig12 = lam12 / f1
            m12x = b * sin(sig12)
        } else if !meridian {
            let start = inverseStart(
                sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2,
                dn2: dn2, lam12: lam12, slam12: slam12, clam12: clam12)
            salp1 = start.salp1
            calp1 = start.calp1
            if start.sig12 >= 0 {
                // Short line solved by the starting guess itself.
                sig12 = start.sig12
                salp2 = start.salp2
                calp2 = start.calp2
                s12x = sig12 * b * start.dnm
            } else {
                let solved = solveAzimuth(
                    sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2,
                    dn2: dn2, slam12: slam12, clam12: clam12,
                    salp1: salp1, calp1: calp1)
                salp1 = solved.salp1
                calp1 = solved.calp1
                salp2 = solved.lambda.salp2
                calp2 = solved.lambda.calp2
                sig12 = solved.lambda.sig12
                let l = solved.lambda
                s12x =
                    b
                    * distanceIntegral(
                        eps: l.eps, sig12: sig12, ssig1: l.ssig1, csig1: l.csig1,
                        ssig2: l.ssig2, csig2: l.csig2)
            }
        }

        let s12 = 0 + s12x // -0 → 0
        if swapp < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapp * lonsign
        calp1 *= swapp * latsign
        salp2 *= swapp * lonsign
        calp2 *= swapp * latsign
        return InverseSolution(
            distance: s12,
            azimuth1: publishedAngle(atan2Degrees(salp1, calp1)),
            azimuth2: publishedAngle(atan2Degrees(salp2, calp2)),
            arcLength: sig12 / degreesToRadians)
    }

    // MARK: - Newton's method with a bisection safeguard

    private func solveAzimuth(
        sbet1: Double, cbet1: Double, dn1: Double,
        sbet2: Double, cbet2: Double, dn2: Double,
        slam12: Double, clam12: Double,
        salp1 s0: Double, calp1 c0: Double
    )
        -> (salp1: Double, calp1: Double, lambda: LambdaResult)
    {
        let tiny = Tolerance.tiny
        let tol0 = Tolerance.tol0
        let tolb = Tolerance.tolb
        var salp1 = s0
        var calp1 = c0
        // Bracket (alp1a, alp1b) holding the root of λ12(α1) − λ12, which is increasing.
        var salp1a = tiny
        var calp1a = 1.0
        var salp1b = tiny
        var calp1b = -1.0
        var tripn = false
        var tripb = false
        var numit = 0
        var result: LambdaResult
        while true {
            result = lambda12(
                sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                wantDerivative: numit < Tolerance.maxNewton)
            let v = result.lam12
            // Reversed test so that a NaN also leaves the loop.
            if tripb || !(abs(v) >= (tripn ? 8 : 1) * tol0) || numit == Tolerance.maxIterations {
                break
            }
            if v > 0 && (numit > Tolerance.maxNewton || calp1 / salp1 > calp1b / salp1b) {
                salp1b = salp1
                calp1b = calp1
            } else if v < 0 && (numit > Tolerance.maxNewton || calp1 / salp1 < calp1a / salp1a) {
                salp1a = salp1
                calp1a = calp1
            }
            numit += 1
            let dv = result.dlam12
            if numit <= Tolerance.maxNewton && dv > 0 {
                let dalp1 = -v / dv
                if abs(dalp1) < Double.pi {
                    let sdalp1 = sin(dalp1)
                    let cdalp1 = cos(dalp1)
                    let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                    if nsalp1 > 0 {
                        calp1 = calp1 * cdalp1 - salp1 * sdalp1
                        salp1 = nsalp1
                        normalize(&salp1, &calp1)
                        // Convergence can be linear when the slope vanishes: then test
                        // against a multiple of ε rather than √ε.
                        tripn = abs(v) <= 16 * tol0
                        continue
                    }
                }
            }
            // Derivative unusable or step out of range: bisect the bracket.
            salp1 = (salp1a + salp1b) / 2
            calp1 = (calp1a + calp1b) / 2
            normalize(&salp1, &calp1)
            tripn = false
            tripb =
                abs(salp1a - salp1) + (calp1a - calp1) < tolb
                || abs(salp1 - salp1b) + (calp1 - calp1b) < tolb
        }
        return (salp1, calp1, result)
    }

    struct LambdaResult {
        var lam12 = 0.0, salp2 = 0.0, calp2 = 0.0, sig12 = 0.0
        var ssig1 = 0.0, csig1 = 0.0, ssig2 = 0.0, csig2 = 0.0, eps = 0.0, dlam12 = 0.0
    }

    /// λ12(α1) − λ12 (Karney 2013, eqs. 5–11 and 23–25) and its derivative (eq. 46).
    @inline(__always)
    private func lambda12(
        sbet1: Double, cbet1: Double, dn1: Double,
        sbet2: Double, cbet2: Double, dn2: Double,
        salp1: Double, calp1 calp1In: Double,
        slam120: Double, clam120: Double,
        wantDerivative: Bool
    ) -> LambdaResult {
        var r = LambdaResult()
        var calp1 = calp1In
        if sbet1 == 0 && calp1 == 0 { calp1 = -Tolerance.tiny } // equatorial degeneracy

        let salp0 = salp1 * cbet1 // sin α0 = sin α1 cos β1
        let calp0 = hypotenuse(calp1, salp1 * sbet1) // > 0

        var ssig1 = sbet1
        let somg1 = salp0 * sbet1
        var csig1 = calp1 * cbet1
        let comg1 = csig1
        normalize(&ssig1, &csig1)

        // Enforce symmetry when |β2| = −β1.
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2 =
            cbet2 != cbet1 || abs(sbet2) != -sbet1
            ? (calp1 * cbet1 * calp1 * cbet1
                + (cbet1 < -sbet1
                    ? (cbet2 - cbet1) * (cbet1 + cbet2)
                    : (sbet1 - sbet2) * (sbet1 + sbet2)))
                .squareRoot() / cbet2
            : abs(calp1)

        var ssig2 = sbet2
        let somg2 = salp0 * sbet2
        var csig2 = calp2 * cbet2
        let comg2 = csig2
        normalize(&ssig2, &csig2)

        let sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2) + 0, csig1 * csig2 + ssig1 * ssig2)
        let somg12 = max(0, comg1 * somg2 - somg1 * comg2) + 0
        let comg12 = comg1 * comg2 + somg1 * somg2
        // eta = omg12 − lam120
        let eta = atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
        let k2 = calp0 * calp0 * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let c3 = third.c3(eps)
        let b312 = c3.sum(sin: ssig2, cos: csig2) - c3.sum(sin: ssig1, cos: csig1)
        let domg12 = -f * third.a3(eps) * salp0 * (sig12 + b312)
        r.lam12 = eta + domg12

        if wantDerivative {
            if calp2 == 0 {
                r.dlam12 = -2 * f1 * dn1 / sbet1
            } else {
                let m12b = reducedLength(
                    eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                    ssig2: ssig2, csig2: csig2, dn2: dn2)
                r.dlam12 = m12b * f1 / (calp2 * cbet2)
            }
        }
        r.salp2 = salp2
        r.calp2 = calp2
        r.sig12 = sig12
        r.ssig1 = ssig1
        r.csig1 = csig1
        r.ssig2 = ssig2
        r.csig2 = csig2
        r.eps = eps
        return r
    }

    // MARK: - Starting guess

    struct StartGuess { var sig12: Double, salp1: Double, calp1: Double, salp2: Double, calp2: Double, dnm: Double }

    /// Starting azimuth for Newton's method (Karney 2013, §4 and eqs. 55–64). Returns
    /// `sig12 ≥ 0` (with α2 and the distance scale `dnm`) when the line is so short that the
    /// guess is already the solution.
    private func inverseStart(
        sbet1: Double, cbet1: Double, dn1: Double,
        sbet2: Double, cbet2: Double, dn2: Double,
        lam12: Double, slam12: Double, clam12: Double
    ) -> StartGuess {
        var g = StartGuess(sig12: -1, salp1: 0, calp1: 0, salp2: 0, calp2: 0, dnm: 0)
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1 // β2 − β1 in [0, π)
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1 // β2 + β1 in (−π, 0]
        let shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double
        var comg12: Double
        if shortline {
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            g.dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * g.dnm)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        } else {
            somg12 = slam12
            comg12 = clam12
        }

        var salp1 = cbet2 * somg12
        var calp1 =
            comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)

        let ssig12 = hypotenuse(salp1, calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        if shortline && ssig12 < etol2 {
            // Really short line: the spherical solution is accurate enough.
            var salp2 = cbet1 * somg12
            var calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            normalize(&salp2, &calp2)
            g.salp2 = salp2
            g.calp2 = calp2
            g.sig12 = atan2(ssig12, csig12)
        } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * Double.pi * cbet1 * cbet1 {
            // The zeroth-order spherical estimate is good enough.
        } else {
            // Nearly antipodal: scale to coordinates (x, y) where the antipode is the origin
            // and solve the astroid problem (eqs. 55–57) for the starting azimuth.
            let lam12x = atan2(-slam12, -clam12) // λ12 − π
            let k2 = sbet1 * sbet1 * ep2
            let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
            let lamscale = f * cbet1 * third.a3(eps) * Double.pi
            let betscale = lamscale * cbet1
            let x = lam12x / lamscale
            let y = sbet12a / betscale
            if y > -Tolerance.tol1 && x > -1 - Tolerance.xthresh {
                // Strip near the cut.
                salp1 = min(1, -x)
                calp1 = -(1 - salp1 * salp1).squareRoot()
            } else {
                let k = astroid(x, y)
                let omg12a = lamscale * (-x * k / (1 + k))
                somg12 = sin(omg12a)
                comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }
        // Sanity check on the guess (the reversed test lets NaN through to the fallback).
        if !(salp1 <= 0) {
            normalize(&salp1, &calp1)
        } else {
            salp1 = 1
            calp1 = 0
        }
        g.salp1 = salp1
        g.calp1 = calp1
        return g
    }

    /// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (Karney 2013,
    /// eq. 55), computed without cancellation.
    private func astroid(_ x: Double, _ y: Double) -> Double {
        let p = x * x
        let q = y * y
        let r = (p + q - 1) / 6
        guard !(q == 0 && r <= 0) else { return 0 }
        let s = p * q / 4
        let r2 = r * r
        let r3 = r * r2
        let disc = s * (s + 2 * r3)
        var u = r
        if disc >= 0 {
            var t3 = s + r3
            t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()
            let t = cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            let ang = atan2((-disc).squareRoot(), -(s + r3))
            u += 2 * r * cos(ang / 3)
        }
        let v = (u * u + q).squareRoot()
        let uv = u < 0 ? q / (v - u) : u + v
        let w = (uv - q) / (2 * v)
        return uv / ((uv + w * w).squareRoot() + w)
    }

    // MARK: - Distance and reduced length integrals

    /// s12 / b: A1 (σ12 + I1 series difference) (Karney 2013, eqs. 7, 15).
    @inline(__always)
    func distanceIntegral(
        eps: Double, sig12: Double, ssig1: Double, csig1: Double,
        ssig2: Double, csig2: Double
    ) -> Double {
        let c1 = c1Series(eps)
        let b1 = c1.sum(sin: ssig2, cos: csig2) - c1.sum(sin: ssig1, cos: csig1)
        return (1 + a1m1(eps)) * (sig12 + b1)
    }

    /// m12 / b, the reduced length (Karney 2013, eqs. 38–41).
    @inline(__always)
    func reducedLength(
        eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
        ssig2: Double, csig2: Double, dn2: Double
    ) -> Double {
        let a1 = a1m1(eps)
        let a2 = a2m1(eps)
        let m0 = a1 - a2
        let A1 = 1 + a1
        let A2 = 1 + a2
        let c1 = c1Series(eps)
        let c2 = c2Series(eps)
        var cb = SineSeries6()
        cb.c1 = A1 * c1.c1 - A2 * c2.c1
        cb.c2 = A1 * c1.c2 - A2 * c2.c2
        cb.c3 = A1 * c1.c3 - A2 * c2.c3
        cb.c4 = A1 * c1.c4 - A2 * c2.c4
        cb.c5 = A1 * c1.c5 - A2 * c2.c5
        cb.c6 = A1 * c1.c6 - A2 * c2.c6
        let j12 = m0 * sig12 + (cb.sum(sin: ssig2, cos: csig2) - cb.sum(sin: ssig1, cos: csig1))
        return dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
    }

    /// s12 / b and m12 / b together.
    @inline(__always)
    func lengths(
        eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
        ssig2: Double, csig2: Double, dn2: Double
    ) -> (s12b: Double, m12b: Double) {
        (
            distanceIntegral(eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2),
            reducedLength(
                eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                ssig2: ssig2, csig2: csig2, dn2: dn2)
        )
    }
}
