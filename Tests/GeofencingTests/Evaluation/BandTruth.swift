import Foundation
import Geodesy

@testable import Geofencing

// Evaluation harness, part 3: the ground truth, from the true path alone.
//
// A band of ±20 m around each boundary is "at the boundary". The true side changes only when
// the path goes at least 20 m past the boundary: that is a *real crossing*, timed at the
// path's last pass through the boundary itself before it. A subject that never leaves the
// band has made no crossing, whatever the fixes say.
//
// A real crossing is *required* (missing it counts) when the stays on both sides of it are
// resolvable with the track's noise: at least 60 s spent `resolvableDepth(σ)` = 20 m + 5 σ
// or more past the boundary, counted between consecutive samples that are both that deep (a
// recording's 14-minute gap after two samples outside is not a stay seen outside). Shallower crossings are optional: an event for one is right,
// no event is not wrong. (With σ = 30 m a path 50 m past the boundary for a minute is
// indistinguishable from one 15 m past: no rule can report the first and never the second.)
//
// A *lingering episode* is a stay of at least 120 s inside the band; the flapping figure
// counts the enter / exit events whose time falls in one.

struct BandCrossing: Sendable {
    var regionID: String
    var kind: TransitionEvent.Kind
    var time: Double
    var required: Bool
}

struct LingeringEpisode: Sendable {
    var regionID: String
    var start: Double
    var end: Double
}

enum BandTruth {
    static let band = 20.0
    static let minimumStay = 60.0
    static let minimumEpisode = 120.0

    static func resolvableDepth(sigma: Double) -> Double { band + 5 * sigma }

    /// The real crossings of `region` by the path, and its lingering episodes.
    static func analyse(
        _ region: Region, truth: [Coordinate], times: [Double],
        sigma: Double
    ) -> (crossings: [BandCrossing], episodes: [LingeringEpisode]) {
        let sd = truth.map { region.signedDistance(to: $0) }
        let deep = resolvableDepth(sigma: sigma)
        var crossings: [BandCrossing] = []
        var resolvable: [Bool] = [] // per stay on one side: the initial one, then one per crossing
        var side = 0 // +1 outside, −1 inside, 0 not yet known
        var lastZero = times[0]
        var deepTime = 0.0
        var episodes: [LingeringEpisode] = []
        var bandStart: Double? = abs(sd[0]) < band ? times[0] : nil
        for i in sd.indices {
            let dt = i > 0 ? times[i] - times[i - 1] : 0
            if i > 0, (sd[i] <= 0) != (sd[i - 1] <= 0) {
                lastZero = times[i - 1] + dt * sd[i - 1] / (sd[i - 1] - sd[i])
            }
            let now = sd[i] >= band ? 1 : sd[i] <= -band ? -1 : 0
            if now != 0, now != side {
                if side != 0 {
                    resolvable.append(deepTime >= minimumStay)
                    crossings.append(
                        BandCrossing(
                            regionID: region.identifier, kind: now < 0 ? .enter : .exit,
                            time: lastZero, required: false))
                }
                side = now
                deepTime = 0
            }
            // Time observed deep: between two consecutive samples both that far past (a gap in
            // a recording before a deep sample says nothing of where the subject was).
            if side != 0, i > 0, Double(side) * sd[i] >= deep, Double(side) * sd[i - 1] >= deep { deepTime += dt }
            // Lingering episodes.
            if abs(sd[i]) < band {
                if bandStart == nil { bandStart = times[i] }
            } else if let s = bandStart {
                if times[i - 1] - s >= minimumEpisode {
                    episodes.append(LingeringEpisode(regionID: region.identifier, start: s, end: times[i - 1]))
                }
                bandStart = nil
            }
        }
        if let s = bandStart, times[times.count - 1] - s >= minimumEpisode {
            episodes.append(LingeringEpisode(regionID: region.identifier, start: s, end: times[times.count - 1]))
        }
        resolvable.append(deepTime >= minimumStay)
        // resolvable[k] is the stay before crossing k, resolvable[k + 1] the one after.
        for k in crossings.indices { crossings[k].required = resolvable[k] && resolvable[k + 1] }
        return (crossings, episodes)
    }
}
