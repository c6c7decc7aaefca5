/// Core Location's word that monitoring a region is late, not refused: `CLError` codes 6
/// (`regionMonitoringSetupDelayed`) and 7 (`regionMonitoringResponseDelayed`) come through
/// `monitoringDidFailFor`, yet the system keeps the region and its events still come.
///
/// ``CoreLocationManagerBackend`` keeps such a region registered and counted against the
/// 20-region limit, delivers its later events as any other's, and reports the delay here
/// (``CoreLocationManagerBackend/delayNotices``, ``CoreLocationManagerBackend/delayedRegions``)
/// instead of through the delegate's failure callback.
public struct MonitoringDelay: Sendable, Hashable {
    /// Which delay Core Location reported.
    public enum Kind: Sendable, Hashable {
        /// Code 6: monitoring will start later.
        case setup
        /// Code 7: events will come later than usual.
        case response

        /// The delay `error` reports, or `nil` when it is not one.
        init?(_ error: SystemError) {
            switch error {
            case .regionMonitoringSetupDelayed: self = .setup
            case .regionMonitoringResponseDelayed: self = .response
            default: return nil
            }
        }
    }

    /// The region concerned (`nil` when Core Location named none).
    public var identifier: String?
    public var kind: Kind

    public init(identifier: String?, kind: Kind) {
        self.identifier = identifier
        self.kind = kind
    }
}
