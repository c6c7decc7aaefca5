import Foundation
import HummingbirdCore
import HummingbirdTLS
import NIOSSL

/// HTTPS for the server itself: a certificate chain and its private key, both PEM files
/// (`--tls-certificate` / `--tls-key`, or `tlsCertificate` / `tlsKey` in the config file).
///
/// The files are read when the server starts; a renewed certificate (every 60–90 days with
/// ACME) takes effect at the next restart, which drains requests in flight (SIGTERM, then
/// start again). TLS 1.2 and 1.3 only, swift-nio-ssl's default ciphers (BoringSSL's).
public struct ServerTLS: Sendable, Hashable {
    /// The PEM file of the certificate chain, the server's own certificate first.
    public var certificatePath: String
    /// The PEM file of the private key (unencrypted).
    public var keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// The swift-nio-ssl server configuration, read from the files now.
    /// - Throws: ``ConfigurationError`` naming the option whose file cannot be read or parsed.
    func configuration() throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificatePath) } catch {
            throw ConfigurationError(
                key: "tlsCertificate", reason: "cannot read a PEM certificate chain from \(certificatePath): \(error)")
        }
        guard !chain.isEmpty else {
            throw ConfigurationError(key: "tlsCertificate", reason: "\(certificatePath) holds no certificate")
        }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyPath, format: .pem) } catch {
            throw ConfigurationError(key: "tlsKey", reason: "cannot read a PEM private key from \(keyPath): \(error)")
        }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        return tls
    }
}

extension HTTPServerBuilder {
    /// `base`, behind TLS when `tls` is given.
    static func serving(_ base: HTTPServerBuilder, tls: ServerTLS?) throws -> HTTPServerBuilder {
        guard let tls else { return base }
        return try .tls(base, tlsConfiguration: tls.configuration())
    }
}
