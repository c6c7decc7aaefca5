import Foundation
import HummingbirdCore
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// What the server allows a connection: how long it may stay silent, and how many may be open.
///
/// - **Idle timeout**: a connection with no request in progress, or whose request stops
///   arriving part-way (a "slowloris" client sending its headers a byte at a time), is closed
///   after ``ServerConfiguration/idleTimeout`` of silence. A request being answered (a long
///   query, the event stream) is never cut by it.
/// - **Open connections**: at most ``ServerConfiguration/maxConnections``, and never more than
///   the process's open-file limit leaves room for (the store, webhooks and logs need
///   descriptors too); beyond it new connections wait in the listen backlog until one closes.
extension HTTPServerBuilder {
    /// HTTP/1.1 with a ``ClientGoneHandler`` on every connection and `idleTimeout`.
    static func http1NoticingClientsGone(idleTimeout: Duration? = nil) -> HTTPServerBuilder {
        .http1(configuration: .noticingClientsGone(idleTimeout: idleTimeout))
    }
}

extension HTTP1Channel.Configuration {
    /// A new ``ClientGoneHandler`` on every connection, and `idleTimeout`.
    static func noticingClientsGone(idleTimeout: Duration?) -> Self {
        .init(additionalChannelHandlers: [ClientGoneHandler()], idleTimeout: idleTimeout.map { .init($0) })
    }
}

extension ServerConfiguration {
    /// Descriptors kept free of connections for the store, webhook requests and logs.
    static let reservedDescriptors = 256

    /// ``maxConnections``, lowered to what the process's open-file limit allows.
    var effectiveMaxConnections: Int {
        guard let files = Self.openFileLimit else { return maxConnections }
        return max(1, min(maxConnections, files - Self.reservedDescriptors))
    }

    /// The process's soft limit on open files (`nil` when unknown; RLIM_INFINITY, all ones,
    /// clamps to `Int.max`).
    static var openFileLimit: Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return nil }
        return Int(clamping: limit.rlim_cur)
    }
}
