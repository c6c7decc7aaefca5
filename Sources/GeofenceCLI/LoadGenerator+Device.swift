import Foundation
import Geodesy
import GeofenceServer
import NIOCore
import NIOPosix

/// The load phase of ``LoadGenerator``: each simulated device is one keep-alive HTTP/1.1
/// connection driven by a ``DeviceDriver`` on a single event-loop thread — requests written as
/// bytes (encoded before the run where ``LoadGenerator/Options/preparedBytes`` allows, see
/// ``DeviceRequests``), answers read from the socket, schedules kept with the loop's timers — so the
/// generator adds one thread and a few tens of microseconds per request to the machine it
/// measures, not a connection pool, a task per device and thread hops per request (the
/// AsyncHTTPClient path it replaced used about as much CPU per request as the server itself,
/// on the same two cores).
extension LoadGenerator {
    /// Host, port and whether TLS is used, from `options.url` (`http(s)://HOST:PORT`).
    static func endpoint(_ url: String) throws -> (host: String, port: Int, tls: Bool) {
        guard let c = URLComponents(string: url), c.scheme == "http" || c.scheme == "https", let host = c.host else {
            throw LoadGeneratorError.url(url)
        }
        let tls = c.scheme == "https"
        return (host, c.port ?? (tls ? 443 : 80), tls)
    }

    /// Runs every device for `options.duration` on `loop`, device `d` sending `requests[d]`;
    /// returns each device's tally.
    func runDevices(_ requests: [DeviceRequests], on loop: any EventLoop) async throws -> [DeviceResult] {
        let (host, port, tls) = try Self.endpoint(options.url)
        let start = NIODeadline.now()
        var futures: [EventLoopFuture<DeviceResult>] = []
        for (d, requests) in requests.enumerated() {
            let promise = loop.makePromise(of: DeviceResult.self)
            let options = self.options
            let channel = ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if tls { try options.tls.addHandler(to: channel.pipeline.syncOperations, host: host) }
                        try channel.pipeline.syncOperations.addHandler(
                            DeviceDriver(
                                options: options, index: d, requests: requests, start: start, done: promise))
                    }
                }
                .connect(host: host, port: port)
            channel.whenFailure { promise.fail($0) }
            futures.append(promise.futureResult)
        }
        var results: [DeviceResult] = []
        for f in futures { results.append(try await f.get()) }
        return results
    }
}

/// One simulated device: a closed loop of one request in flight on its own connection, paced
/// to `requestsPerSecond / devices` against a fixed schedule (see ``LoadGenerator``). Lives on
/// its channel's event loop; its latency is measured from the write of the request to the
/// last byte of the answer read, both on that loop.
final class DeviceDriver: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let options: LoadGenerator.Options
    private let start: NIODeadline
    private let end: NIODeadline
    /// Nanoseconds between two requests of this device (0: unpaced).
    private let period: Double
    private let phase: Double
    private let done: EventLoopPromise<DeviceResult>
    private var requests: DeviceRequests
    private var result = DeviceResult()
    private var k = 0
    private var sent: NIODeadline?
    private var answer = ByteBuffer()
    private var context: ChannelHandlerContext?
    private var finished = false

    init(
        options: LoadGenerator.Options, index d: Int, requests: DeviceRequests, start: NIODeadline,
        done: EventLoopPromise<DeviceResult>
    ) {
        self.options = options
        self.requests = requests
        self.start = start
        self.end = start + .nanoseconds(Int64(options.duration.secondsDouble * 1e9))
        self.done = done
        let perDevice = options.requestsPerSecond > 0 ? options.requestsPerSecond / Double(options.devices) : 0
        self.period = perDevice > 0 ? 1e9 / perDevice : 0
        self.phase = options.aligned ? 0 : Double(d) / Double(options.devices)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        next()
        // Bounded: whatever the server does, the device stops 120 s after the run's end.
        context.eventLoop.assumeIsolated().scheduleTask(deadline: end + .seconds(120)) { [self] in
            finish(error: true)
        }
        context.fireChannelActive()
    }

    /// Sends the next request at its scheduled time, or now when behind (counted `late`), or
    /// finishes once the run's time is up.
    private func next() {
        guard !finished, let context else { return }
        let now = NIODeadline.now()
        if period > 0 {
            let due = start + .nanoseconds(Int64((Double(k) + phase) * period))
            if due >= end || now >= end { return finish(error: false) }
            if now < due {
                context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in send() }
                return
            }
            if k > 0 { result.late += 1 }
        } else if now >= end {
            return finish(error: false)
        }
        send()
    }

    private func send() {
        guard !finished, let context else { return }
        k += 1
        let request = requests.next()
        sent = .now()
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        answer.writeBuffer(&bytes)
        guard let sent, let (status, bodyRange) = Self.completeAnswer(answer) else { return }
        let latency = NIODeadline.now() - sent
        self.sent = nil
        result.record(sent: sent - start, latency: latency)
        if status == 200 {
            result.fixes += options.batchSize
            result.events += Self.count(#""cursor""#, in: answer.readableBytesView[bodyRange])
        } else {
            result.errors += 1
        }
        answer.clear()
        next()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(error: sent != nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(error: true)
        context.close(promise: nil)
    }

    private func finish(error: Bool) {
        guard !finished else { return }
        finished = true
        if error, let sent {
            // The request in flight never got its answer: an error, timed to now.
            result.record(sent: sent - start, latency: NIODeadline.now() - sent)
            result.errors += 1
            self.sent = nil
        }
        result.encodedLive = requests.encodedLive
        done.succeed(result)
        context?.close(promise: nil)
    }

    /// The status and the body's index range once `buffer` holds a whole answer (headers and a
    /// `Content-Length` body); `nil` while more bytes are needed.
    static func completeAnswer(_ buffer: ByteBuffer) -> (Int, Range<Int>)? {
        let view = buffer.readableBytesView
        let crlf2: [UInt8] = [13, 10, 13, 10]
        guard let headerEnd = view.firstRange(of: crlf2) else { return nil }
        let head = String(decoding: view[view.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first else { return nil }
        let parts = statusLine.split(separator: " ")
        let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var length = 0
        for line in lines.dropFirst() {
            let kv = line.split(separator: ":", maxSplits: 1)
            if kv.count == 2, kv[0].lowercased() == "content-length" {
                length = Int(kv[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        let bodyStart = headerEnd.upperBound
        guard view.endIndex - bodyStart >= length else { return nil }
        return (status, bodyStart..<(bodyStart + length))
    }

    /// Occurrences of `needle` in `bytes` (one `"cursor"` per event in an answer).
    static func count(_ needle: String, in bytes: ByteBufferView.SubSequence) -> Int {
        let n = Array(needle.utf8)
        var found = 0
        var i = bytes.startIndex
        while let j = bytes[i...].firstIndex(of: n[0]) {
            if bytes[j...].starts(with: n) { found += 1 }
            i = bytes.index(after: j)
        }
        return found
    }
}
