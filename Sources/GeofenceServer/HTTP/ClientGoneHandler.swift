import NIOCore

/// Notices when the client stops sending: its connection closed, or only its sending side
/// (a FIN: what a client that closes its socket normally sends first).
///
/// Hummingbird allows half-closed connections, so a FIN alone never closes the channel and
/// `closeFuture` would wait until the server wrote its answer. Like nginx (whose 499 status
/// means the same thing), the server takes the end of the client's input while a request is
/// being worked on as "the client went away": ``RequestBudgetMiddleware`` cancels the work.
/// HTTP/1.1 clients do not half-close to wait for an answer; one that does gets its connection
/// closed without an answer to a request still running (docs/server.md, "Bounded work").
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    /// Completes when the client's input ends or the channel goes away, whichever is first.
    private(set) var gone: EventLoopFuture<Void>?
    private var promise: EventLoopPromise<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        self.promise = promise
        self.gone = promise.futureResult
    }

    func handlerRemoved(context: ChannelHandlerContext) { markGone() }

    func channelInactive(context: ChannelHandlerContext) {
        markGone()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { markGone() }
        context.fireUserInboundEventTriggered(event)
    }

    private func markGone() {
        promise?.succeed()
        promise = nil
    }

    /// The future of `channel`'s handler (its `closeFuture` when the pipeline has none).
    static func gone(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit {
            (try? channel.pipeline.syncOperations.handler(type: ClientGoneHandler.self).gone) ?? channel.closeFuture
        }
    }
}
