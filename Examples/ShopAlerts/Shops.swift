import Geodesy
import Geofencing
import RegionPlanner

/// The catalogue: any number of shops (a real app loads them from a file or a server).
enum Shops {
    static let regions: [Region] = [
        ("bakery-rue-neuve", 45.7640, 4.8357), ("books-bellecour", 45.7578, 4.8320),
        ("cafe-terreaux", 45.7675, 4.8336), ("market-croix-rousse", 45.7745, 4.8310),
        // … thousands more
    ].compactMap { id, lat, lon in
        guard let center = try? Coordinate(latitude: lat, longitude: lon) else { return nil }
        return Region.circle(identifier: id, center: center, radius: 200) // docs/ios.md: 200 m
    }

    static func source() throws -> PlannerSource {
        PlannerSource(prefix: "shop.", catalogue: try Catalogue(regions.map { CatalogueEntry(region: $0) }))
    }
}
