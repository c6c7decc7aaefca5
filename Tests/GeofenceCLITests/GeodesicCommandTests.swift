import Geodesy
import Testing

@testable import GeofenceCLI

@Suite("geofence geodesic streaming")
struct GeodesicCommandTests {
    /// Feeds `input` through the stream in chunks of `chunk` bytes.
    func run(_ problem: GeodesicProblem, _ input: String, chunk: Int) throws(GeodesicLineError) -> String {
        let bytes = Array(input.utf8)
        var offset = 0
        var out: [UInt8] = []
        try GeodesicStream.run(
            solver: GeodesicLineSolver(problem: problem), chunkSize: 16,
            read: { buf in
                let n = min(chunk, buf.count, bytes.count - offset)
                for k in 0..<n { buf[k] = bytes[offset + k] }
                offset += n
                return n
            }, write: { out.append(contentsOf: $0) })
        return String(decoding: out, as: UTF8.self)
    }

    @Test("lines split across reads give the same answers, one per line, final line without newline included")
    func chunking() throws {
        let input = "40.6 -73.8 49.01666667 2.55\n0 0 0 1\n-30 170 35 -160"
        let expected =
            try input.split(separator: "\n").map {
                try GeodesicLineSolver(problem: .inverse).solve(String($0))
            }.joined(separator: "\n") + "\n"
        for chunk in [1, 3, 7, 64, 4096] {
            #expect(try run(.inverse, input, chunk: chunk) == expected, "chunk \(chunk)")
        }
    }

    @Test("a bad line stops the run with its line number; earlier answers are kept")
    func badLine() throws {
        var out: [UInt8] = []
        let input = Array("0 0 0 1\n0 0 1 0\n0 0 x 0\n0 0 0 2\n".utf8)
        var done = false
        #expect(throws: GeodesicLineError(line: 3, kind: .notANumber(field: 3, text: "x"))) {
            try GeodesicStream.run(
                solver: GeodesicLineSolver(problem: .direct),
                read: { buf in
                    if done { return 0 }
                    for k in 0..<input.count { buf[k] = input[k] }
                    done = true
                    return input.count
                }, write: { out.append(contentsOf: $0) })
        }
        #expect(String(decoding: out, as: UTF8.self).split(separator: "\n").count == 2)
    }

    @Test("the geodesic subcommands are registered")
    func registered() throws {
        let command = try GeofenceCommand.parseAsRoot(["geodesic", "inverse"])
        #expect(command is GeodesicCommand.Inverse)
    }
}
