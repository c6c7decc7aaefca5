import Dispatch
import Foundation
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServiceLifecycle

/// HTTPS for the server itself: a certificate chain and its private key, both PEM files
/// (`--tls-certificate` / `--tls-key`, or `tlsCertificate` / `tlsKey` in the config file).
///
/// The files are read at start-up and again on SIGHUP (``GeofenceServer/reloadTLS()``): a
/// renewed certificate (every 60–90 days with ACME) serves every connection accepted after the
/// reload, while open connections keep the one they started with; a reload that cannot read the
/// files keeps the current certificate and logs why. TLS 1.2 and 1.3, swift-nio-ssl's default
/// ciphers (BoringSSL's).
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

/// The TLS context each new connection starts with; ``reload()`` replaces it.
final class ServerTLSContext: Sendable {
    let tls: ServerTLS
    private let current: NIOLockedValueBox<NIOSSLContext>

    init(_ tls: ServerTLS) throws {
        self.tls = tls
        current = NIOLockedValueBox(try Self.context(tls))
    }

    var context: NIOSSLContext { current.withLockedValue { $0 } }

    /// Reads the files again; when they cannot be read, the current context stays and the
    /// error is thrown.
    func reload() throws {
        let fresh = try Self.context(tls)
        current.withLockedValue { $0 = fresh }
    }

    private static func context(_ tls: ServerTLS) throws -> NIOSSLContext {
        let configuration = try tls.configuration()
        do { return try NIOSSLContext(configuration: configuration) } catch {
            throw ConfigurationError(
                key: "tlsKey", reason: "the key does not fit the certificate, or the chain is unusable: \(error)")
        }
    }
}

/// Where a server keeps its TLS context once ``GeofenceServer/makeApplication(onServerRunning:)``
/// has read it.
final class ServerTLSSlot: Sendable {
    private let slot = NIOLockedValueBox<ServerTLSContext?>(nil)
    var context: ServerTLSContext? {
        get { slot.withLockedValue { $0 } }
        set { slot.withLockedValue { $0 = newValue } }
    }
}

/// A connection behind TLS with the context current when it was accepted.
struct ReloadableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let tls: ServerTLSContext
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = tls.context
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Base.Value, logger: Logger) async { await base.handle(value: value, logger: logger) }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 noticing clients gone (``http1NoticingClientsGone(idleTimeout:)``), behind TLS
    /// with `tls`'s current context when it is given.
    static func serving(idleTimeout: Duration?, tls: ServerTLSContext?) -> HTTPServerBuilder {
        guard let tls else { return .http1NoticingClientsGone(idleTimeout: idleTimeout) }
        let configuration = HTTP1Channel.Configuration.noticingClientsGone(idleTimeout: idleTimeout)
        return HTTPServerBuilder { responder in
            ReloadableTLSChannel(tls: tls, base: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}

/// Reloads the TLS certificate on SIGHUP (the usual signal after a certificate renewal), until
/// the server shuts down. SIGHUP's default action (ending the process) is turned off while it
/// runs.
struct TLSReloadOnHangup: Service {
    let tls: ServerTLSContext
    let logger: Logger

    /// Turns SIGHUP's default action off at once, so that a SIGHUP arriving before ``run()``
    /// starts cannot end the process.
    init(tls: ServerTLSContext, logger: Logger) {
        self.tls = tls
        self.logger = logger
        Self.ignoreDefaultAction
    }

    /// Once per process: on Linux a signal source receives the signal through a handler that
    /// libdispatch installs, so a later `signal(SIGHUP, SIG_IGN)` (a second server in the same
    /// process) would silence every source.
    private static let ignoreDefaultAction: Void = { _ = signal(SIGHUP, SIG_IGN) }()

    func run() async throws {
        let source = DispatchSource.makeSignalSource(signal: SIGHUP)
        let tls = self.tls
        let logger = self.logger
        source.setEventHandler {
            do {
                try tls.reload()
                logger.info("TLS certificate reloaded", metadata: ["certificate": "\(tls.tls.certificatePath)"])
            } catch {
                logger.error("TLS reload failed; the current certificate stays", metadata: ["error": "\(error)"])
            }
        }
        source.resume()
        try? await gracefulShutdown()
        source.cancel()
    }
}
