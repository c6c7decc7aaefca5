import Foundation
import Geodesy
import NIOCore

/// One simulated device's requests, in order: whole HTTP/1.1 requests (head and `{"fixes":[…]}`
/// body) from the device's seeded walk, each batch's fix times one simulated second after the
/// previous batch's. The first ones can be encoded before the timed run (``prepare(bytes:)``),
/// so that during the run the generator only writes bytes it already has; the rest are encoded
/// when sent. Either way the server gets the same requests, in the same order.
struct DeviceRequests: Sendable {
    private let head: String
    private let batchSize: Int
    private var walker: Walker
    private var rng: SplitMix64
    private var prepared: [ByteBuffer] = []
    private var nextPrepared = 0
    /// Requests encoded while the run was timed (after the prepared ones ran out).
    private(set) var encodedLive = 0

    init(options: LoadGenerator.Options, index d: Int, host: String, port: Int) {
        var rng = SplitMix64(seed: options.seed &+ UInt64(d) &* 0x9E37_79B9)
        walker = Walker(
            lat: rng.uniform(LoadGenerator.box.minLat, LoadGenerator.box.maxLat),
            lon: rng.uniform(LoadGenerator.box.minLon, LoadGenerator.box.maxLon),
            // 2001-09-09: one simulated second per fix runs far ahead of the
            // wall clock in batched runs, and the server refuses fixes more than
            // a few minutes in its future; this start leaves decades of room.
            time: 1_000_000_000 + Double(d))
        self.rng = rng
        batchSize = options.batchSize
        head =
            "POST /v1/devices/\(options.runID)-\(d)/locations HTTP/1.1\r\nHost: \(host):\(port)\r\n"
            + "Authorization: Bearer \(options.key)\r\nContent-Type: application/json\r\nContent-Length: "
    }

    /// Requests prepared and not sent yet.
    var preparedLeft: Int { prepared.count - nextPrepared }

    /// Encodes the next requests ahead, until they take at least `bytes` (none for 0).
    mutating func prepare(bytes: Int) {
        var total = 0
        while total < bytes {
            let request = encode()
            total += request.readableBytes
            prepared.append(request)
        }
    }

    /// The next request: a prepared one while any is left, else one encoded now.
    mutating func next() -> ByteBuffer {
        guard nextPrepared < prepared.count else {
            encodedLive += 1
            return encode()
        }
        defer {
            // Sent requests are let go, so a long run does not hold every body it sent.
            prepared[nextPrepared] = ByteBuffer()
            nextPrepared += 1
        }
        return prepared[nextPrepared]
    }

    private mutating func encode() -> ByteBuffer {
        let body = walker.batch(batchSize, rng: &rng)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(head.utf8.count + body.count + 16)
        buffer.writeString(head)
        buffer.writeString("\(body.count)\r\n\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}
