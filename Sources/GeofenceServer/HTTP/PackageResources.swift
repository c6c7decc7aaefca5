import Foundation

/// The server's package resources (`Resources/`: the OpenAPI document, the dashboard's files),
/// found in the resource bundle SwiftPM puts beside the executable — where `swift build`,
/// `swift run` and `swift test` leave it and where an installation must copy it. Looked up
/// here rather than through `Bundle.module`, which stops the process when the bundle is
/// missing: a server without its resources still serves the rest of the API (and says why).
enum PackageResources {
    /// The bundle's `Resources` folder, or `nil` when no bundle is found.
    static let folder: URL? = {
        var places = [Bundle.main.bundleURL]
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            places.append(exe.deletingLastPathComponent())
        }
        // Linux bundles are plain folders; Apple platforms' keep resources under Contents/Resources.
        let layouts = [
            "Geofence_GeofenceServer.resources/Resources",
            "Geofence_GeofenceServer.bundle/Contents/Resources/Resources",
        ]
        return places.flatMap { place in layouts.map { place.appendingPathComponent($0) } }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    /// The resource at `path` under `Resources/` (`openapi.json`, `Dashboard/index.html`), if present.
    static func url(_ path: String) -> URL? {
        guard let url = folder?.appendingPathComponent(path), FileManager.default.fileExists(atPath: url.path) else {
            return nil
        }
        return url
    }
}
