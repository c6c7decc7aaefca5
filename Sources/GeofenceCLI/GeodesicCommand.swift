import ArgumentParser
import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `geofence geodesic inverse|direct`: GeodSolve-style streaming geodesic calculations.
struct GeodesicCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geodesic",
        abstract: "Solve geodesic problems on WGS84, one per line, from stdin to stdout.",
        discussion: """
            Karney's algorithms (J. Geodesy 87, 43–55, 2013): distances accurate to 15 nm for \
            every pair of points, nearly antipodal ones included.

            Output is fixed-point: distances with 9 decimals (metres), angles with 12 \
            decimals (degrees). Azimuths are clockwise from north, in (-180, 180]. A line \
            that cannot be read stops the run with a one-line error naming its number on \
            stderr and exit status 1 (the answers before it have been printed).

            Examples:
              echo "40.64 -73.78 51.47 -0.46" | geofence geodesic inverse
              echo "40.64 -73.78 51.2 5554539.9" | geofence geodesic direct
            """,
        subcommands: [Inverse.self, Direct.self]
    )

    struct Inverse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read 'lat1 lon1 lat2 lon2' lines; print 'distance_m azimuth1_deg azimuth2_deg'.",
            discussion: "Like GeographicLib's `GeodSolve -i` (which prints azimuths before the distance).")
        func run() throws { try GeodesicCommand.stream(.inverse, name: "inverse") }
    }

    struct Direct: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read 'lat1 lon1 azimuth_deg distance_m' lines; print 'lat2 lon2 azimuth2_deg'.",
            discussion: """
                Like GeographicLib's `GeodSolve`. A negative distance travels backwards along \
                the geodesic; longitudes are printed in (-180, 180].
                """)
        func run() throws { try GeodesicCommand.stream(.direct, name: "direct") }
    }

    static func stream(_ problem: GeodesicProblem, name: String) throws {
        let solver = GeodesicLineSolver(problem: problem)
        do {
            try GeodesicStream.run(
                solver: solver,
                read: { buffer in
                    while true {
                        let n = read(0, buffer.baseAddress, buffer.count)
                        if n >= 0 { return n }
                        if errno != EINTR { return 0 }
                    }
                }, write: { bytes in writeAll(1, bytes) })
        } catch {
            writeAll(2, Array("geofence geodesic \(name): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buf in
            var offset = 0
            while offset < buf.count {
                let n = write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 { if errno == EINTR { continue } else { return } }
                offset += n
            }
        }
    }
}

/// The streaming loop of `geofence geodesic`: reads big chunks, splits lines, solves each,
/// and writes answers in large blocks. Separated from the file descriptors for tests.
enum GeodesicStream {
    static let chunkSize = 1 << 20

    /// Runs until `read` returns 0. Lines may span chunk boundaries; a final line without a
    /// newline is solved too. Returns the number of lines solved.
    @discardableResult
    static func run(
        solver: GeodesicLineSolver, chunkSize: Int = chunkSize,
        read: (UnsafeMutableBufferPointer<UInt8>) -> Int,
        write: ([UInt8]) -> Void
    ) throws(GeodesicLineError) -> Int {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var output: [UInt8] = []
        output.reserveCapacity(chunkSize + 4096)
        var pending = 0 // bytes at the start of `buffer` from an unfinished line
        var lineNumber = 0
        defer { if !output.isEmpty { write(output) } }
        while true {
            if pending == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            let n = buffer.withUnsafeMutableBufferPointer { all in
                read(UnsafeMutableBufferPointer(rebasing: all[pending...]))
            }
            let end = pending + n
            let atEOF = n == 0
            var consumed = 0
            try buffer.withUnsafeBufferPointer { (all) throws(GeodesicLineError) in
                var start = 0
                var i = pending
                while i < end {
                    if all[i] == 0x0A {
                        lineNumber += 1
                        try solver.solve(
                            line: UnsafeBufferPointer(rebasing: all[start..<i]), number: lineNumber, into: &output)
                        start = i + 1
                        if output.count >= chunkSize {
                            write(output)
                            output.removeAll(keepingCapacity: true)
                        }
                    }
                    i += 1
                }
                if atEOF && start < end {
                    lineNumber += 1
                    try solver.solve(
                        line: UnsafeBufferPointer(rebasing: all[start..<end]), number: lineNumber, into: &output)
                    start = end
                }
                consumed = start
            }
            if atEOF { return lineNumber }
            // Move the unfinished line to the front.
            let rest = end - consumed
            if rest > 0 && consumed > 0 {
                buffer.withUnsafeMutableBufferPointer { b in
                    b.baseAddress!.update(from: b.baseAddress! + consumed, count: rest)
                }
            }
            pending = rest
        }
    }
}
