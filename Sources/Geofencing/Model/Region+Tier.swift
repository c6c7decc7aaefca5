/// A region's tier parent and source, kept in ``Region/metadata`` under the reserved keys
/// ``Region/parentKey`` and ``Region/sourceKey`` (the GeoJSON properties `parent` and
/// `source`, read and validated by GeoFormats). The engine ignores both: they decide what a
/// phone monitors (RegionPlanner, the server's device plans), never what a fix means.
extension Region {
    /// The metadata key of the tier parent's identifier.
    public static let parentKey = "parent"
    /// The metadata key of the source (business) the region belongs to.
    public static let sourceKey = "source"

    /// The identifier of the region this one is a tier child of; `nil` for a top-tier region.
    /// A child is monitored only while the subject is inside its parent.
    public var parent: String? {
        get { metadata[Region.parentKey] }
        set { metadata[Region.parentKey] = newValue }
    }

    /// The business or data source of the region; a phone registers it as `source + "." + id`.
    public var source: String? {
        get { metadata[Region.sourceKey] }
        set { metadata[Region.sourceKey] = newValue }
    }
}
