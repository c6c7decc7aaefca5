/// Every path the API serves and the methods each takes: what a request with another method
/// on a known path is told (405 with `Allow`, RFC 9110 §15.5.6) instead of 404. The routes
/// themselves are registered in `Routes+*.swift`; a test checks the two agree with the
/// OpenAPI document.
enum RouteTable {
    static let routes: [(path: [String], methods: [String])] = [
        (["health"], ["GET"]),
        (["metrics"], ["GET"]),
        (["v1", "openapi.json"], ["GET"]),
        (["v1", "key"], ["GET"]),
        (["v1", "regions"], ["GET", "POST"]),
        (["v1", "regions", "import"], ["POST"]),
        (["v1", "regions", "nearby"], ["GET"]),
        (["v1", "regions", "map"], ["GET"]),
        (["v1", "regions", "search"], ["GET"]),
        (["v1", "regions", "{id}", "figures"], ["GET"]),
        (["v1", "regions", "{id}"], ["GET", "PUT", "DELETE"]),
        (["v1", "devices"], ["GET"]),
        (["v1", "devices", "{id}", "locations"], ["POST"]),
        (["v1", "devices", "{id}", "state"], ["GET"]),
        (["v1", "devices", "{id}", "track"], ["GET"]),
        (["v1", "devices", "{id}", "plan"], ["GET"]),
        (["v1", "devices", "{id}", "settings"], ["GET", "PUT"]),
        (["v1", "settings"], ["GET", "PUT"]),
        (["v1", "events"], ["GET"]),
        (["v1", "events", "stream"], ["GET"]),
        (["v1", "events", "history"], ["GET"]),
        (["v1", "devices", "{id}", "push-tokens"], ["GET"]),
        (["v1", "devices", "{id}", "push-tokens", "{id}"], ["PUT", "DELETE"]),
        (["v1", "devices", "{id}", "notification-settings"], ["GET", "PUT"]),
        (["v1", "devices", "{id}", "notifications"], ["GET"]),
        (["v1", "notification-rules"], ["GET", "POST"]),
        (["v1", "notification-rules", "{id}"], ["DELETE"]),
        (["v1", "webhooks"], ["GET", "POST"]),
        (["v1", "webhooks", "{id}"], ["DELETE"]),
        (["v1", "webhooks", "{id}", "deliveries"], ["GET"]),
        (["v1", "ingest", "owntracks"], ["POST"]),
        (["v1", "ingest", "osmand"], ["GET", "POST"]),
    ]

    /// The methods allowed on `path` (a concrete request path), or `nil` for an unknown path.
    static func allowedMethods(path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        // As the router does: a literal segment wins over `{id}` (`/v1/regions/nearby` is the
        // nearby route, never region "nearby"), so the most literal match decides.
        var best: (literals: Int, methods: [String])? = nil
        for route in routes where route.path.count == segments.count {
            let matches = zip(route.path, segments).allSatisfy { pattern, segment in
                pattern == "{id}" || pattern == segment
            }
            guard matches else { continue }
            let literals = route.path.filter { $0 != "{id}" }.count
            if best == nil || literals > best!.literals { best = (literals, route.methods) }
        }
        return best?.methods
    }
}
