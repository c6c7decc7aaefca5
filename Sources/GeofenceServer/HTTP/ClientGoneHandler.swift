import NIOConcurrencyHelpers
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
///
/// Each request waits through ``waitUntilGone(on:)``, which registers a waiter here and takes it
/// back when the request ends, so a connection kept alive for many requests holds only the
/// waiters of the requests running on it (a callback on a future could not be taken back).
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    /// Whether the client has gone (input ended, or the channel closed).
    private var isGone = false
    /// The requests waiting on this connection. Event-loop only.
    private var waiters: [ObjectIdentifier: GoneWait] = [:]

    /// Requests of this connection waiting now (tests check none are left behind).
    var waiterCount: Int { waiters.count }

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
        isGone = true
        let woken = waiters.values
        waiters = [:]
        for w in woken { w.finish() }
    }

    private func register(_ wait: GoneWait) {
        if isGone { return wait.finish() }
        if !wait.isFinished { waiters[ObjectIdentifier(wait)] = wait }
    }

    private func unregister(_ wait: GoneWait) { waiters[ObjectIdentifier(wait)] = nil }

    /// Returns when the client behind `channel` goes away or the calling task is cancelled,
    /// whichever is first; either way no waiter is left on the connection. Without a handler
    /// in the pipeline (a server built without one), waits for the channel's close.
    static func waitUntilGone(on channel: any Channel) async {
        let wait = GoneWait()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                wait.start(c)
                channel.eventLoop.execute {
                    guard let handler = try? channel.pipeline.syncOperations.handler(type: ClientGoneHandler.self)
                    else {
                        channel.closeFuture.whenComplete { _ in wait.finish() }
                        return
                    }
                    handler.register(wait)
                }
            }
        } onCancel: {
            wait.finish()
            channel.eventLoop.execute {
                (try? channel.pipeline.syncOperations.handler(type: ClientGoneHandler.self))?.unregister(wait)
            }
        }
    }
}

/// One request's wait for its client to go away: finished once, by the handler or by the
/// request's own cancellation, whichever comes first (the other does nothing).
final class GoneWait: Sendable {
    private let state = NIOLockedValueBox<(continuation: CheckedContinuation<Void, Never>?, finished: Bool)>(
        (nil, false))

    var isFinished: Bool { state.withLockedValue { $0.finished } }

    /// Sets the continuation to resume; resumes it at once when already finished.
    func start(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLockedValue { s -> Bool in
            if s.finished { return true }
            s.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func finish() {
        let continuation = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            s.finished = true
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume()
    }
}
