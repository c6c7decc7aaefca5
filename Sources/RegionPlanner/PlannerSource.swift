import Foundation
import Geofencing

/// One business's or data source's catalogue, registered under its own identifier prefix so
/// that several sources share the monitor's slots without clashes.
///
/// ```swift
/// let shops = PlannerSource(prefix: "acme.", catalogue: try Catalogue(shopEntries))
/// let tiers = PlannerSource(prefix: "gov.", catalogue: try Catalogue(provinces),
///                           cacheExpiry: 3_600) { parent in try await api.children(of: parent.identifier) }
/// ```
///
/// The loader (async) returns the children of an entry with `hasChildren`; it is called after
/// that entry is entered, and its result is cached for `cacheExpiry` seconds (on the
/// planner's clock): while fresh, re-entering the parent reuses it without calling the loader.
public struct PlannerSource: Sendable {
    /// Loads the children of a tier parent.
    public typealias Loader = @Sendable (CatalogueEntry) async throws -> [CatalogueEntry]

    /// Prepended to every identifier this source registers (e.g. `"acme."`); must not start
    /// with another source's prefix or with ``RegionPlanner/reservedPrefix``.
    public var prefix: String
    /// The top-level entries (tier children are added and removed as parents are entered and left).
    public var catalogue: Catalogue
    /// Fetches children of tier parents; `nil` if this source has no tiers.
    public var loader: Loader?
    /// How long loaded children stay fresh (seconds).
    public var cacheExpiry: TimeInterval

    public init(
        prefix: String, catalogue: Catalogue, cacheExpiry: TimeInterval = 24 * 3_600,
        loader: Loader? = nil
    ) {
        self.prefix = prefix
        self.catalogue = catalogue
        self.cacheExpiry = cacheExpiry
        self.loader = loader
    }
}

/// A transition of a catalogue region, as the planner reports it to the app.
public struct PlannerEvent: Sendable, Hashable {
    /// The source's prefix.
    public var source: String
    /// The catalogue identifier (without the prefix).
    public var identifier: String
    /// The monitor's event (its `regionID` carries the prefix).
    public var event: TransitionEvent

    /// Shorthand for `event.kind`.
    public var kind: TransitionEvent.Kind { event.kind }
}
