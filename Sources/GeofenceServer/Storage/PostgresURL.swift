import Foundation

/// The parts of a `postgres://user:password@host:port/database?sslmode=…&search_path=…` URL
/// that ``PostgresStore/open(url:maximumConnections:logger:)`` needs. Percent-escapes in the
/// user and password are decoded; the port defaults to 5432 and the database to the user name.
/// `search_path` puts the tables in that schema (several deployments, or tests, in one
/// database).
package struct PostgresURL: Sendable, Equatable {
    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    /// `sslmode=require` (or `verify-full`): TLS with certificate verification. Anything else
    /// (`disable`, unset): plain TCP, meant for loopback or a private network.
    package var requireTLS: Bool
    /// The schema(s) to create and find the tables in; the server's default when `nil`.
    package var searchPath: String?

    /// - Throws: ``ConfigurationError`` with key `database`, naming the missing or bad part
    ///   (never echoing the password).
    package init(_ text: String) throws {
        func bad(_ reason: String) -> ConfigurationError { ConfigurationError(key: "database", reason: reason) }
        guard let c = URLComponents(string: text), let scheme = c.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw bad("not a postgres:// URL (postgres://user:password@host:port/database)")
        }
        guard let host = c.host, !host.isEmpty else { throw bad("the PostgreSQL URL names no host") }
        guard let user = c.user?.removingPercentEncoding, !user.isEmpty else {
            throw bad("the PostgreSQL URL names no user")
        }
        if let p = c.port, !(1...65_535).contains(p) { throw bad("port \(p) is not a TCP port") }
        self.host = host
        self.port = c.port ?? 5432
        self.user = user
        self.password = c.password?.removingPercentEncoding
        let db = String(c.path.drop(while: { $0 == "/" }))
        self.database = db.isEmpty ? user : (db.removingPercentEncoding ?? db)
        searchPath = c.queryItems?.first(where: { $0.name == "search_path" })?.value
        let mode = c.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        switch mode {
        case "disable", "allow", "prefer": requireTLS = false
        case "require", "verify-ca", "verify-full": requireTLS = true
        default: throw bad("sslmode \"\(mode)\" is not one of disable, require, verify-full")
        }
    }
}
