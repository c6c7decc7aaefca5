import ArgumentParser

@main
struct Geofence: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geofence",
        abstract: "Geofencing on the WGS84 ellipsoid: simulate tracks against regions, geodesic tools.",
        version: GeofenceVersion.current,
        subcommands: []
    )
}

enum GeofenceVersion {
    static let current = "0.1.0"
}
