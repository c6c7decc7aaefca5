import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// One request as a stand-in sees it.
package struct StandInRequest: Sendable {
    package var method: HTTPMethod
    package var path: String
    package var headers: HTTPHeaders
    package var body: Data
    /// The client's end of the connection (`ip:port`): requests of one client share it.
    package var connection: String = ""
}

/// One answer from a stand-in.
package struct StandInResponse: Sendable {
    package var status: HTTPResponseStatus
    package var headers: [(String, String)] = []
    package var body: Data = Data()
    /// Writes the head, promising a body, and nothing more: a server that stalls mid-answer.
    package var stallsAfterHead = false

    package init(
        status: HTTPResponseStatus, headers: [(String, String)] = [], body: Data = Data(), stallsAfterHead: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stallsAfterHead = stallsAfterHead
    }

    package static func json(
        _ status: HTTPResponseStatus, _ object: [String: Any], headers: [(String, String)] = []
    ) -> Self {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return StandInResponse(status: status, headers: headers + [("content-type", "application/json")], body: body)
    }
}

/// A TLS server on 127.0.0.1 that speaks HTTP/2 (negotiated by ALPN, as Apple's and Google's
/// servers do) and answers each request with `respond`. With `allowsHTTP1` false, a connection
/// that does not negotiate `h2` is closed before any request is read: APNs speaks HTTP/2 only.
package final class HTTP2StandInServer: Sendable {
    package let port: Int
    private let channel: any Channel
    private let refusedConnections: NIOLockedValueBox<Int>

    /// Connections closed for not speaking HTTP/2.
    package var refusedHTTP1Connections: Int { refusedConnections.withLockedValue { $0 } }

    package init(
        certificatePath: String, keyPath: String, allowsHTTP1: Bool,
        respond: @escaping @Sendable (StandInRequest) -> StandInResponse
    ) async throws {
        var tls = try TLSConfiguration.makeServerConfiguration(
            certificateChain: NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
            privateKey: .privateKey(NIOSSLPrivateKey(file: keyPath, format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = allowsHTTP1 ? ["h2", "http/1.1"] : ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let refused = NIOLockedValueBox(0)
        refusedConnections = refused
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(
                        ApplicationProtocolNegotiationHandler(alpnCompleteHandler: { result, channel in
                            HTTP2StandInServer.configure(
                                channel, protocol: result, allowsHTTP1: allowsHTTP1, refused: refused, respond: respond)
                        }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    package var baseURL: String { "https://127.0.0.1:\(port)" }

    package func shutdown() async throws {
        try await channel.close()
    }

    private static func configure(
        _ channel: any Channel, protocol result: ALPNResult, allowsHTTP1: Bool, refused: NIOLockedValueBox<Int>,
        respond: @escaping @Sendable (StandInRequest) -> StandInResponse
    ) -> EventLoopFuture<Void> {
        switch result {
        case .negotiated("h2"):
            return channel.configureHTTP2Pipeline(
                mode: .server,
                inboundStreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers(
                            HTTP2FramePayloadToHTTP1ServerCodec(), StandInRequestHandler(respond: respond))
                    }
                }
            ).map { _ in }
        case _ where allowsHTTP1:
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(StandInRequestHandler(respond: respond))
            }
        default:
            refused.withLockedValue { $0 += 1 }
            return channel.close()
        }
    }
}

/// Gathers one request (head, body, end) and writes the stand-in's answer. Bodies over 1 MiB
/// are cut short: no push request comes near it.
private final class StandInRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (StandInRequest) -> StandInResponse
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(respond: @escaping @Sendable (StandInRequest) -> StandInResponse) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var part):
            if body.readableBytes < 1 << 20 { body.writeBuffer(&part) }
        case .end:
            guard let head else { return }
            // An HTTP/2 request's channel is a stream; its parent is the connection.
            let peer = context.channel.parent?.remoteAddress ?? context.channel.remoteAddress
            let request = StandInRequest(
                method: head.method, path: head.uri, headers: head.headers, body: Data(body.readableBytesView),
                connection: peer.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "")
            let response = respond(request)
            var headers = HTTPHeaders(response.headers)
            headers.replaceOrAdd(
                name: "content-length", value: String(response.stallsAfterHead ? 1 : response.body.count))
            context.write(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: head.version, status: response.status, headers: headers))),
                promise: nil)
            if response.stallsAfterHead {
                context.flush()
                return
            }
            // An empty answer (APNs's 200) is the head and the end of the stream, as APNs sends
            // it. With a zero-length body part written between them, answers on a connection
            // with two or more streams in flight never completed at AsyncHTTPClient's side: the
            // requests hung, past their deadline.
            if !response.body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(data: response.body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            self.head = nil
        }
    }
}
