import Benchmark
import Foundation
import GeoFormats

/// Track files written once to the temporary directory (outside the measurement), fixed
/// content (no randomness): a drive sampled every second.
enum Files {
    static let csvLines = 1_000_000
    static let nmeaEpochs = 200_000
    static let gpxPoints = 200_000

    static func write(_ name: String, _ make: (inout String) -> Void) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("formats-bench-\(name)").path
        var text = ""
        make(&text)
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    static func position(_ i: Int) -> (lat: Double, lon: Double) {
        (31.2 + Double(i % 100_000) * 1e-6, 121.4 + Double(i % 70_000) * 1.3e-6)
    }

    /// A positive value given in units of 1e-7, written with 7 decimals ("31.2393940"),
    /// as GPS loggers write coordinates.
    static func fixed7(_ units: Int) -> String {
        let frac = String(units % 10_000_000)
        return "\(units / 10_000_000)." + String(repeating: "0", count: 7 - frac.count) + frac
    }

    static let csv: String = write("track.csv") { out in
        out.reserveCapacity(csvLines * 70)
        out += "time,latitude,longitude,accuracy,speed,course\n"
        let start = 1_433_210_880
        for i in 0..<csvLines {
            let lat = fixed7(312_000_000 + (i % 100_000) * 10)
            let lon = fixed7(1_214_000_000 + (i % 70_000) * 13)
            let stamp = Timestamp.format(Date(timeIntervalSince1970: Double(start + i) + Double(i % 10) / 10))
            out += "\(stamp),\(lat),\(lon),\(5 + i % 20),\(i % 30).\(i % 10),\(i % 360)\n"
        }
    }

    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + "\r\n"
    }

    static let nmea: String = write("track.nmea") { out in
        for i in 0..<nmeaEpochs {
            let s = i % 86_400
            let t = String(format: "%02d%02d%02d.00", s / 3600, s / 60 % 60, s % 60)
            out += sentence("GPGGA,\(t),3112.0000,N,12124.0000,E,1,08,1.2,12.5,M,9.0,M,,")
            out += sentence("GPRMC,\(t),A,3112.0000,N,12124.0000,E,10.0,180.0,020615,,,A")
        }
    }

    static let gpx: String = write("track.gpx") { out in
        out += "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"bench\"><trk><trkseg>\n"
        for i in 0..<gpxPoints {
            let (lat, lon) = position(i)
            let stamp = Timestamp.format(Date(timeIntervalSince1970: Double(1_433_210_880 + i)))
            out += "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><ele>12.5</ele><time>\(stamp)</time><hdop>1.2</hdop></trkpt>\n"
        }
        out += "</trkseg></trk></gpx>\n"
    }
}

/// Parses `count` elements from the file at `path`, restarting at the end of the file.
@inline(never)
func parse(path: String, count: some Sequence) -> Int {
    guard let reader = try? TrackReader(path: path) else { fatalError("cannot open \(path)") }
    var iterator = reader.makeIterator()
    var checksum = 0
    for _ in count {
        guard let element = iterator.next() else {
            iterator = reader.makeIterator()
            continue
        }
        switch element {
        case .success(let p): checksum &+= Int(p.coordinate.latitude)
        case .failure(let e): fatalError("unexpected error \(e)")
        }
    }
    return checksum
}

let benchmarks: @Sendable () -> Void = {
    let perLine = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .cpuUser, .peakMemoryResident, .mallocCountTotal], timeUnits: .nanoseconds,
        warmupIterations: 1,
        scalingFactor: .mega, maxDuration: .seconds(10), maxIterations: 5)

    Benchmark("CSV track lines parsed from a file (streaming)", configuration: perLine) { benchmark in
        let path = Files.csv
        benchmark.startMeasurement()
        blackHole(parse(path: path, count: benchmark.scaledIterations))
        benchmark.stopMeasurement()
    } setup: {
        _ = Files.csv
    }

    // A million elements per iteration, so that opening the file (and the 1 MiB first
    // read, twice: detection, then iteration) is amortised.
    let perKilo = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .cpuUser], timeUnits: .nanoseconds, warmupIterations: 1,
        scalingFactor: .mega, maxDuration: .seconds(10), maxIterations: 5)

    Benchmark("NMEA epochs (GGA+RMC) parsed from a file", configuration: perKilo) { benchmark in
        let path = Files.nmea
        benchmark.startMeasurement()
        blackHole(parse(path: path, count: benchmark.scaledIterations))
        benchmark.stopMeasurement()
    } setup: {
        _ = Files.nmea
    }

    Benchmark("GPX track points parsed from a file", configuration: perKilo) { benchmark in
        let path = Files.gpx
        benchmark.startMeasurement()
        blackHole(parse(path: path, count: benchmark.scaledIterations))
        benchmark.stopMeasurement()
    } setup: {
        _ = Files.gpx
    }
}
