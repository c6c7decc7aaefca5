import Foundation
import Geodesy
import Geofencing

/// What a phone would show for an event: the wording rules of the demo.
public enum PhoneNotification {
    /// The notification text for `event` in `region`, or `nil` if the region says nothing
    /// for this kind of event. `regions` resolves bridge ids for the distance.
    public static func text(for event: TransitionEvent, region: Region?, regions: [String: Region]) -> String? {
        guard let region else { return nil }
        let meta = region.metadata
        var message: String?
        switch event.kind {
        case .enter: message = meta["message"]
        case .exit: message = meta["exitMessage"]
        case .dwell:
            message =
                meta["dwellMessage"]
                ?? meta["name"].map { name in
                    let minutes = Int(((region.dwell ?? 0) / 60).rounded())
                    return "You've been at \(name) for \(minutes) min. How was it?"
                }
        }
        guard var text = message else { return nil }
        if event.kind == .enter, let kind = meta["kind"], kind.hasPrefix("bridge") {
            let bridgeID = meta["bridge"] ?? region.identifier
            if let bridge = regions[bridgeID], case .circle(let center, _) = bridge.shape {
                let d = Geodesic.wgs84.inverse(event.fix.coordinate, center).distance
                text += ", " + distanceText(d)
            }
        }
        return text
    }

    /// "180 m" under a kilometre (to 10 m), "1.5 km" above.
    public static func distanceText(_ metres: Double) -> String {
        if metres < 1_000 { return "\(Int((metres / 10).rounded()) * 10) m" }
        return String(format: "%.1f km", metres / 1_000)
    }
}
