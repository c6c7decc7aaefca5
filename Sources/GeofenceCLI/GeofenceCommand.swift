import ArgumentParser

/// The `geofence` command-line tool's root command. The executable target only calls `main()`;
/// every subcommand lives in this library so that tests can drive it.
public struct GeofenceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "geofence",
        abstract: "Geofencing on the WGS84 ellipsoid: simulate tracks against regions, geodesic tools.",
        version: GeofenceVersion.current,
        subcommands: [
            DemoCommand.self, SimulateCommand.self, GeodesicCommand.self, ServeCommand.self, DeviceCommand.self,
        ]
    )

    public init() {}
}

/// The tool's version, printed by `geofence --version`.
public enum GeofenceVersion {
    public static let current = "0.1.0"
}

extension GeofenceCommand {
    /// Parses `arguments` and runs the chosen subcommand, exiting the process on error or completion.
    ///
    /// On the main actor, so that a synchronous subcommand (`simulate`, `geodesic`) runs on the
    /// main thread and the threads it starts inherit the process's priority: on a
    /// cooperative-pool thread, which Dispatch runs at nice 0, `nice geofence simulate` had no
    /// effect on the work.
    @MainActor
    public static func run<S: Sequence<String>>(_ arguments: S) async {
        do {
            var command = try parseAsRoot(Array(arguments))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
