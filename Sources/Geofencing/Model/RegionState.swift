/// Where a subject is relative to one region, as the engine has confirmed it.
///
/// `unknown` until a fix decides it (no fix yet, or the fixes so far were too poor or too
/// close to the boundary); then `inside` or `outside`. Pending, unconfirmed transitions do
/// not change the state: it flips only when the transition event is confirmed.
public enum RegionState: String, Sendable, Hashable, Codable, CaseIterable {
    case unknown
    case inside
    case outside
}
