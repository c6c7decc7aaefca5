#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The direct problem (Karney 2013, §3): given a start, an azimuth and a distance, find the
// destination. The distance is turned into an arc length on the auxiliary sphere by
// inverting the distance integral with the reverted series C1' (eqs. 20–21), then latitude,
// longitude (eqs. 23–25) and azimuth follow in closed form. No iteration.

extension Geodesic {
    /// Solves the direct problem: where a geodesic that leaves `start` with `azimuth`
    /// (degrees clockwise from north) arrives after `distance` metres.
    ///
    /// A negative `distance` travels backwards along the same geodesic (the result is the
    /// point from which a forward trip of `|distance|` arrives at `start` with `azimuth`), as
    /// in GeographicLib. Distances longer than half the meridian are allowed: the geodesic
    /// is simply followed (it is then no longer the shortest path).
    ///
    /// `azimuth` and `distance` must be finite; see ``validatedDirect(from:azimuth:distance:)``
    /// for a version that checks them. Non-finite values give a NaN `azimuth2` and a
    /// coordinate equal to `start`, never a crash.
    public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> DirectSolution {
        guard azimuth.isFinite, distance.isFinite else {
            return DirectSolution(coordinate: start, azimuth2: .nan)
        }
        let r = direct(latitude: start.latitude, longitude: start.longitude, azimuth: azimuth, distance: distance)
        return DirectSolution(
            coordinate: Coordinate(uncheckedLatitude: r.latitude, longitude: r.longitude),
            azimuth2: r.azimuth2)
    }

    /// ``direct(from:azimuth:distance:)`` with its inputs checked.
    /// - Throws: ``GeodesyError/nonFiniteValue(name:value:)`` for a non-finite azimuth or
    ///   distance.
    public func validatedDirect(
        from start: Coordinate, azimuth: Double,
        distance: Double
    ) throws(GeodesyError) -> DirectSolution {
        guard azimuth.isFinite else { throw .nonFiniteValue(name: "azimuth", value: azimuth) }
        guard distance.isFinite else { throw .nonFiniteValue(name: "distance", value: distance) }
        return direct(from: start, azimuth: azimuth, distance: distance)
    }

    /// The direct problem on raw degrees (latitude in [-90, 90], all values finite).
    /// Returns the longitude in (-180, 180] and the arrival azimuth in (-180, 180].
    public func direct(
        latitude lat1In: Double, longitude lon1: Double, azimuth azi1: Double,
        distance s12: Double
    ) -> (latitude: Double, longitude: Double, azimuth2: Double) {
        let tiny = Tolerance.tiny
        let lat1 = lat1In
        let (salp1, calp1) = sincosDegrees(roundAngle(normalizeAngle(azi1)))
        var (sbet1, cbet1) = sincosDegrees(roundAngle(lat1))
        sbet1 *= f1
        normalize(&sbet1, &cbet1)
        cbet1 = max(tiny, cbet1)
        let salp0 = salp1 * cbet1 // α0 in [0, π/2 − |β1|]
        let calp0 = hypotenuse(calp1, salp1 * sbet1)
        // σ1 from tan β1 = tan σ1 cos α1; ω1 from tan ω1 = sin α0 tan σ1.
        var ssig1 = sbet1
        let somg1 = salp0 * sbet1
        var csig1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let comg1 = csig1
        normalize(&ssig1, &csig1)

        let k2 = calp0 * calp0 * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let A1 = 1 + a1m1(eps)
        let c1 = c1Series(eps)
        let b11 = c1.sum(sin: ssig1, cos: csig1)
        let sb11 = sin(b11)
        let cb11 = cos(b11)
        let stau1 = ssig1 * cb11 + csig1 * sb11 // τ1 = σ1 + B11
        let ctau1 = csig1 * cb11 - ssig1 * sb11
        let c1p = c1pSeries(eps)
        let a3c = -f * salp0 * third.a3(eps)
        let c3 = third.c3(eps)
        let b31 = c3.sum(sin: ssig1, cos: csig1)

        // τ12 = s12 / (b A1); σ12 = τ12 − (B12 − B11) with B12 from the reverted series.
        let tau12 = s12 / (b * A1)
        let st = sin(tau12)
        let ct = cos(tau12)
        let b12 = -c1p.sum(sin: stau1 * ct + ctau1 * st, cos: ctau1 * ct - stau1 * st)
        let sig12 = tau12 - (b12 - b11)
        let ssig12 = sin(sig12)
        let csig12 = cos(sig12)

        let ssig2 = ssig1 * csig12 + csig1 * ssig12 // σ2 = σ1 + σ12
        var csig2 = csig1 * csig12 - ssig1 * ssig12
        let sbet2 = calp0 * ssig2 // sin β2 = cos α0 sin σ2
        var cbet2 = hypotenuse(salp0, calp0 * csig2)
        if cbet2 == 0 { // salp0 = 0, csig2 = 0: break degeneracy
            cbet2 = tiny
            csig2 = tiny
        }
        let salp2 = salp0
        let calp2 = calp0 * csig2 // tan α0 = cos σ2 tan α2

        // Longitude: ω12 unrolled, then λ12 = ω12 + A3c (σ12 + B32 − B31).
        let e = Double(signOf: salp0, magnitudeOf: 1)
        let somg2 = salp0 * ssig2
        let comg2 = csig2
        let omg12 =
            e
            * (sig12
                - (atan2(ssig2, csig2) - atan2(ssig1, csig1))
                + (atan2(e * somg2, comg2) - atan2(e * somg1, comg1)))
        let lam12 = omg12 + a3c * (sig12 + (c3.sum(sin: ssig2, cos: csig2) - b31))
        let lon12 = lam12 / degreesToRadians
        let lon2 = normalizeAngle(normalizeAngle(lon1) + normalizeAngle(lon12))
        let lat2 = atan2Degrees(sbet2, f1 * cbet2)
        let azi2 = atan2Degrees(salp2, calp2)
        return (lat2, publishedAngle(lon2), publishedAngle(azi2))
    }
}
