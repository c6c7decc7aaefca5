import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The dashboard's static files (`Resources/Dashboard`: hand-written HTML, CSS and JavaScript
/// modules, no build step), read once from the package's resources and served from memory.
struct DashboardAssets: Sendable {
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        /// A strong validator: the first 16 bytes of the content's SHA-256, hex.
        var etag: String
    }

    let files: [String: Asset]

    /// File extensions served, with their media types; anything else in the folder is ignored.
    static let mediaTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "json": "application/json",
    ]

    /// The `Resources/Dashboard` folder (``PackageResources``), when it holds the page.
    static func folder() -> URL? {
        PackageResources.url("Dashboard/index.html")?.deletingLastPathComponent()
    }

    /// Reads every file of `Resources/Dashboard` (one level, by name); none when the folder
    /// is missing.
    static func load() -> DashboardAssets {
        var files: [String: Asset] = [:]
        guard let root = folder(), let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else {
            return DashboardAssets(files: [:])
        }
        for name in names {
            guard let type = mediaTypes[(name as NSString).pathExtension.lowercased()],
                let data = FileManager.default.contents(atPath: root.appendingPathComponent(name).path)
            else { continue }
            files[name] = asset(data, contentType: type)
        }
        return DashboardAssets(files: files)
    }

    static func asset(_ data: Data, contentType: String) -> Asset {
        let digest = SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined()
        return Asset(body: ByteBuffer(data: data), contentType: contentType, etag: "\"\(digest)\"")
    }
}

extension GeofenceServer {
    /// The Content-Security-Policy of every dashboard response: scripts, styles and requests
    /// from this origin only (no inline script or style, no eval), images also from the tile
    /// server's origins when one is configured (one per `{s}` subdomain), no framing, no plugins.
    static func dashboardPolicy(tileOrigins: [String]) -> String {
        let img = ["'self'"] + tileOrigins
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src \(img.joined(separator: " ")); "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
    }

    /// `GET /` (the dashboard page), `GET /dashboard/{file}` (its scripts, styles, icon) and
    /// `GET /dashboard/config.json` (the optional base map: `tileURL`, `tileSubdomains`,
    /// `tileMaxZoom`, `tileAttribution`). Open routes: the page
    /// holds no data; it asks for the API key and sends it as a bearer header to /v1.
    ///
    /// Caching: every file has a strong `ETag` and `Cache-Control: no-cache`, so a browser
    /// revalidates (a 304 of a few bytes) and never runs yesterday's script against today's API.
    func addDashboardRoutes(to router: Router<APIRequestContext>) {
        let tileURL = configuration.dashboardTileURL
        var config: [String: ServerJSON] = ["tileURL": tileURL.map(ServerJSON.string) ?? .null]
        config["tileAttribution"] = configuration.dashboardTileAttribution.map(ServerJSON.string) ?? .null
        config["tileSubdomains"] = .array(configuration.dashboardTileSubdomains.map(ServerJSON.string))
        config["tileMaxZoom"] = .number(Double(configuration.dashboardTileMaxZoom))
        var files = DashboardAssets.load().files
        if files["index.html"] == nil {
            logger.warning(
                "dashboard files not found beside the executable (Geofence_GeofenceServer.resources); / answers 404")
        }
        files["config.json"] = DashboardAssets.asset(
            ServerJSON.object(config).encoded(), contentType: "application/json")
        let assets = DashboardAssets(files: files)
        let policy = Self.dashboardPolicy(
            tileOrigins: tileURL.map { Self.origins(of: $0, subdomains: configuration.dashboardTileSubdomains) } ?? [])

        @Sendable func serve(_ name: String, _ request: Request) throws -> Response {
            guard let a = assets.files[name] else {
                throw Problem.notFound("no dashboard file \"\(name.prefix(100))\"")
            }
            var headers: HTTPFields = [
                .contentType: a.contentType, .eTag: a.etag, .cacheControl: "no-cache",
                .contentSecurityPolicy: policy, .xContentTypeOptions: "nosniff",
                .referrerPolicy: "no-referrer", .xFrameOptions: "DENY",
            ]
            if let tags = request.headers[.ifNoneMatch],
                tags.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces) == a.etag || $0.trimmingCharacters(in: .whitespaces) == "*"
                })
            {
                headers[.contentType] = nil
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentLength] = String(a.body.readableBytes)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: a.body))
        }
        router.get("/") { request, _ in try serve("index.html", request) }
        router.get("dashboard/:file") { request, context in try serve(try context.parameters.require("file"), request) }
    }

    /// `scheme://host[:port]` of a tile URL template with `{s}` as `subdomain`, for the CSP's
    /// `img-src`.
    static func origin(of template: String, subdomain: String = "") -> String? {
        let probe = template.replacingOccurrences(of: "{z}", with: "0").replacingOccurrences(of: "{x}", with: "0")
            .replacingOccurrences(of: "{y}", with: "0").replacingOccurrences(of: "{s}", with: subdomain)
        guard let u = URLComponents(string: probe), let scheme = u.scheme, let host = u.host else { return nil }
        return "\(scheme)://\(host)" + (u.port.map { ":\($0)" } ?? "")
    }

    /// Every origin a tile URL template reaches: one per subdomain when it holds `{s}`.
    static func origins(of template: String, subdomains: [String]) -> [String] {
        let names = template.contains("{s}") ? subdomains : [""]
        var seen: [String] = []
        for name in names { if let o = origin(of: template, subdomain: name), !seen.contains(o) { seen.append(o) } }
        return seen
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
