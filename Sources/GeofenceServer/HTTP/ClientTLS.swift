import AsyncHTTPClient
import NIOCore
import NIOSSL

/// How the command-line clients (`geofence device`, `geofence serve loadgen`) trust an HTTPS
/// server: the system's roots by default, a given CA certificate (a private CA, or the
/// server's own self-signed certificate), or — for a throw-away test server only — nothing.
public struct ClientTLS: Sendable, Hashable {
    /// A PEM file of certificates to trust instead of the system's roots.
    public var caCertificatePath: String?
    /// Skip certificate verification entirely (a test server; never across a network you do
    /// not control).
    public var insecure = false

    public init(caCertificatePath: String? = nil, insecure: Bool = false) {
        self.caCertificatePath = caCertificatePath
        self.insecure = insecure
    }

    /// The swift-nio-ssl client configuration.
    /// - Throws: ``ConfigurationError`` when the CA file cannot be read.
    func configuration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caCertificatePath {
            do { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificatePath)) } catch {
                throw ConfigurationError(
                    key: "--ca-certificate", reason: "cannot read PEM certificates from \(caCertificatePath): \(error)")
            }
        }
        if insecure { tls.certificateVerification = .none }
        return tls
    }

    /// An AsyncHTTPClient on the shared event loops that trusts as configured; shut it down
    /// after use.
    public func makeHTTPClient() throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        try apply(to: &configuration)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Sets `configuration`'s TLS to trust as configured.
    public func apply(to configuration: inout HTTPClient.Configuration) throws {
        configuration.tlsConfiguration = try self.configuration()
    }

    /// Adds a TLS client handler for `host` (its name is checked against the certificate, and
    /// sent as SNI unless it is an IP address) at the front of `pipeline`.
    public func addHandler(to pipeline: ChannelPipeline.SynchronousOperations, host: String) throws {
        let context = try NIOSSLContext(configuration: configuration())
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        try pipeline.addHandler(try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
    }
}
