import Foundation
import Geodesy
import Geofencing

/// An SVG map of regions, tracks and events, in a local projection around the data.
///
/// ```swift
/// let svg = SVGMap(title: "Truck 7 toward the low bridge", regions: regions,
///                  tracks: recorder.tracks, events: recorder.events).render()
/// try svg.write(toFile: "map.svg", atomically: true, encoding: .utf8)
/// ```
///
/// Draws: regions (circles as geodesic polygons of ``circleVertices`` vertices; polygons
/// with their holes), each track as a line coloured by speed or by time with its fixes as
/// dots, each event as a marker (enter ●, exit ●, dwell ■) with a label that avoids the
/// labels already placed, a scale bar, a north arrow, a legend and a title. The view is the
/// tracks plus the regions that have events (all regions when there is no track); at most
/// ``maximumRegionsDrawn`` regions inside the view are drawn. Cost: O(points + regions ×
/// vertices). Not a tile map: no streets or background.
public struct SVGMap: Sendable {
    /// What the track's colour shows.
    public enum Coloring: String, Sendable, CaseIterable {
        case speed
        case time
    }

    public var title: String
    public var subtitle: String?
    public var regions: [Region]
    public var tracks: [MapRecorder.Track]
    public var events: [ReportedEvent]
    public var coloring: Coloring = .speed
    /// Time zone for clock times in labels.
    public var timeZone: TimeZone = .current
    /// Extra text per region id shown in its label (e.g. a clearance), when few regions.
    public var regionNotes: [String: String] = [:]
    public var width = 1_200.0
    public var circleVertices = 96
    public var maximumRegionsDrawn = 3_000

    public init(
        title: String, subtitle: String? = nil, regions: [Region],
        tracks: [MapRecorder.Track], events: [ReportedEvent]
    ) {
        self.title = title
        self.subtitle = subtitle
        self.regions = regions
        self.tracks = tracks
        self.events = events
    }

    // MARK: Layout constants

    static let panelWidth = 270.0
    static let margin = 24.0
    static let titleHeight = 58.0
    static let palette = ["#440154", "#46327e", "#365c8d", "#277f8e", "#1fa187", "#4ac16d", "#a0da39", "#fde725"]
    static let enterColor = "#1a9850", exitColor = "#d73027", dwellColor = "#4575b4"

    /// The SVG document.
    public func render() -> String {
        var frame = Frame(map: self)
        var svg = SVGBuilder(width: width, height: frame.height)
        svg.open(title: title)
        drawTitle(&svg, frame)
        svg.raw(
            "<defs><clipPath id=\"mapclip\"><rect x=\"\(f(frame.mapX))\" y=\"\(f(frame.mapY))\" width=\"\(f(frame.mapW))\" height=\"\(f(frame.mapH))\"/></clipPath></defs>\n"
        )
        svg.raw("<g id=\"map\" clip-path=\"url(#mapclip)\">\n")
        svg.raw(
            "<rect x=\"\(f(frame.mapX))\" y=\"\(f(frame.mapY))\" width=\"\(f(frame.mapW))\" height=\"\(f(frame.mapH))\" fill=\"#f4f1ea\"/>\n"
        )
        drawGrid(&svg, frame)
        let (drawn, labels) = drawRegions(&svg, &frame)
        drawTracks(&svg, frame)
        if labels.count <= 60 {
            svg.raw("<g id=\"region-labels\">\n")
            for (label, x, y) in labels {
                svg.raw(
                    "<text class=\"region-label\" x=\"\(f(x))\" y=\"\(f(y - 5))\" text-anchor=\"middle\" font-size=\"12\" fill=\"#1f3f73\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">\(xml(label))</text>\n"
                )
            }
            svg.raw("</g>\n")
        }
        svg.raw("</g>\n")
        svg.raw(
            "<rect x=\"\(f(frame.mapX))\" y=\"\(f(frame.mapY))\" width=\"\(f(frame.mapW))\" height=\"\(f(frame.mapH))\" fill=\"none\" stroke=\"#888\"/>\n"
        )
        drawEvents(&svg, frame)
        drawScaleBar(&svg, frame)
        drawNorthArrow(&svg, frame)
        drawLegend(&svg, frame, regionsDrawn: drawn)
        svg.close()
        return svg.text
    }

    // MARK: Pieces

    private func drawTitle(_ svg: inout SVGBuilder, _ frame: Frame) {
        svg.raw(
            "<text id=\"title\" x=\"\(f(Self.margin))\" y=\"32\" font-size=\"22\" font-weight=\"bold\" fill=\"#222\">\(xml(title))</text>\n"
        )
        if let subtitle {
            svg.raw("<text x=\"\(f(Self.margin))\" y=\"50\" font-size=\"13\" fill=\"#555\">\(xml(subtitle))</text>\n")
        }
    }

    private func drawGrid(_ svg: inout SVGBuilder, _ frame: Frame) {
        let step = Self.niceLength(frame.metresAcross / 6)
        svg.raw("<g id=\"grid\" stroke=\"#e2ddd0\" stroke-width=\"1\">\n")
        var e = (frame.minE / step).rounded(.down) * step
        while e <= frame.maxE {
            let x = frame.x(e)
            svg.raw(
                "<line x1=\"\(f(x))\" y1=\"\(f(frame.mapY))\" x2=\"\(f(x))\" y2=\"\(f(frame.mapY + frame.mapH))\"/>\n")
            e += step
        }
        var n = (frame.minN / step).rounded(.down) * step
        while n <= frame.maxN {
            let y = frame.y(n)
            svg.raw(
                "<line x1=\"\(f(frame.mapX))\" y1=\"\(f(y))\" x2=\"\(f(frame.mapX + frame.mapW))\" y2=\"\(f(y))\"/>\n")
            n += step
        }
        svg.raw("</g>\n")
    }

    private func drawRegions(_ svg: inout SVGBuilder, _ frame: inout Frame) -> (Int, [(String, Double, Double)]) {
        let eventRegions = Set(events.map(\.event.regionID))
        svg.raw("<g id=\"regions\">\n")
        var drawn = 0
        var labels: [(String, Double, Double)] = []
        for region in regions {
            guard drawn < maximumRegionsDrawn else { break }
            let rings = frame.outline(region)
            guard frame.intersectsView(rings) else { continue }
            drawn += 1
            let hot = eventRegions.contains(region.identifier)
            var d = ""
            for ring in rings {
                for (k, p) in ring.enumerated() {
                    d += (k == 0 ? "M" : "L") + f(frame.x(p.e)) + " " + f(frame.y(p.n))
                }
                d += "Z"
            }
            let fill = hot ? "#f6a623" : "#5b8fd6"
            let stroke = hot ? "#c77c00" : "#2f63ad"
            svg.raw(
                "<path class=\"region\" data-id=\"\(xml(region.identifier))\" d=\"\(d)\" fill=\"\(fill)\" fill-opacity=\"0.22\" fill-rule=\"evenodd\" stroke=\"\(stroke)\" stroke-width=\"1.5\"/>\n"
            )
            if case .circle(let center, _) = region.shape {
                let c = frame.projection.project(center)
                let cx = frame.x(c.east)
                let cy = frame.y(c.north)
                svg.raw(
                    "<path d=\"M\(f(cx - 4)) \(f(cy))H\(f(cx + 4))M\(f(cx)) \(f(cy - 4))V\(f(cy + 4))\" stroke=\"\(stroke)\" stroke-width=\"1.5\"/>\n"
                )
            }
            if let top = rings.first?.max(by: { $0.n < $1.n }) {
                var label = region.identifier
                if let note = regionNotes[region.identifier] { label += " · " + note }
                labels.append((label, frame.x(top.e), frame.y(top.n)))
            }
        }
        svg.raw("</g>\n")
        return (drawn, labels)
    }

    private func drawTracks(_ svg: inout SVGBuilder, _ frame: Frame) {
        let range = colorRange()
        svg.raw("<g id=\"tracks\" fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n")
        for track in tracks where !track.points.isEmpty {
            svg.raw("<g class=\"track\" data-subject=\"\(xml(track.subject))\">\n")
            // Under-stroke so the coloured line reads on any fill.
            var all = ""
            for p in track.points {
                let q = frame.projection.project(Coordinate(uncheckedLatitude: p.latitude, longitude: p.longitude))
                all += f(frame.x(q.east)) + "," + f(frame.y(q.north)) + " "
            }
            svg.raw("<polyline points=\"\(all)\" stroke=\"#fff\" stroke-width=\"6\" stroke-opacity=\"0.8\"/>\n")
            var run = ""
            var runBin = -1
            var previous = ""
            for p in track.points {
                let q = frame.projection.project(Coordinate(uncheckedLatitude: p.latitude, longitude: p.longitude))
                let pt = f(frame.x(q.east)) + "," + f(frame.y(q.north))
                let bin = colorBin(p, range)
                if bin != runBin {
                    if !run.isEmpty {
                        svg.raw(
                            "<polyline points=\"\(run)\(pt)\" stroke=\"\(Self.palette[runBin])\" stroke-width=\"3.5\"/>\n"
                        )
                    }
                    run = previous.isEmpty ? "" : previous + " "
                    runBin = bin
                }
                run += pt + " "
                previous = pt
            }
            if !run.isEmpty, runBin >= 0 {
                svg.raw("<polyline points=\"\(run)\" stroke=\"\(Self.palette[runBin])\" stroke-width=\"3.5\"/>\n")
            }
            if track.points.count <= 3_000 {
                svg.raw("<g class=\"fixes\" fill=\"#333\" fill-opacity=\"0.55\" stroke=\"none\">\n")
                for p in track.points {
                    let q = frame.projection.project(Coordinate(uncheckedLatitude: p.latitude, longitude: p.longitude))
                    svg.raw("<circle cx=\"\(f(frame.x(q.east)))\" cy=\"\(f(frame.y(q.north)))\" r=\"1.3\"/>\n")
                }
                svg.raw("</g>\n")
            }
            if let first = track.points.first {
                let q = frame.projection.project(
                    Coordinate(uncheckedLatitude: first.latitude, longitude: first.longitude))
                svg.raw(
                    "<circle cx=\"\(f(frame.x(q.east)))\" cy=\"\(f(frame.y(q.north)))\" r=\"5\" fill=\"#fff\" stroke=\"#222\" stroke-width=\"2\"/>\n"
                )
                svg.raw(
                    "<text class=\"subject-label\" x=\"\(f(frame.x(q.east) + 8))\" y=\"\(f(frame.y(q.north) + 4))\" font-size=\"12\" font-weight=\"bold\" fill=\"#222\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">\(xml(track.subject)) start</text>\n"
                )
            }
            svg.raw("</g>\n")
        }
        svg.raw("</g>\n")
    }

    private func drawEvents(_ svg: inout SVGBuilder, _ frame: Frame) {
        svg.raw("<g id=\"events\" font-size=\"12\">\n")
        var placed: [(x0: Double, y0: Double, x1: Double, y1: Double)] = []
        let showLabels = events.count <= 80
        let markers: [(Double, Double)] = events.map { r in
            let q = frame.projection.project(r.event.fix.coordinate)
            return (frame.x(q.east), frame.y(q.north))
        }
        for r in events {
            let e = r.event
            let q = frame.projection.project(e.fix.coordinate)
            let x = frame.x(q.east)
            let y = frame.y(q.north)
            guard x >= frame.mapX - 1, x <= frame.mapX + frame.mapW + 1,
                y >= frame.mapY - 1, y <= frame.mapY + frame.mapH + 1
            else { continue }
            let color = Self.color(e.kind)
            svg.raw("<g class=\"event\" data-kind=\"\(e.kind.rawValue)\" data-region=\"\(xml(e.regionID))\">\n")
            if e.kind == .dwell {
                svg.raw(
                    "<rect x=\"\(f(x - 6))\" y=\"\(f(y - 6))\" width=\"12\" height=\"12\" fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"2\"/>\n"
                )
            } else {
                svg.raw(
                    "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"7\" fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"2\"/>\n"
                )
            }
            if showLabels {
                let label = "\(e.kind.rawValue) \(e.regionID) · \(TimestampFormat.clockTime(e.time, in: timeZone))"
                let w = Double(label.count) * 6.6 + 8
                let h = 17.0
                var best = (score: Int.max, dx: 12.0, dy: -22.0)
                search: for dy in [-22.0, 6, -42, 26, -62, 46, -82, 66, -102, 86, -122, 106] {
                    for dx in [12.0, -12 - w, 40, -40 - w] {
                        let box = (x0: x + dx, y0: y + dy, x1: x + dx + w, y1: y + dy + h)
                        var score = 0
                        if box.x0 < frame.mapX || box.x1 > frame.mapX + frame.mapW
                            || box.y0 < frame.mapY || box.y1 > frame.mapY + frame.mapH
                        {
                            score += 100
                        }
                        score +=
                            10
                            * placed.filter { $0.x0 < box.x1 && box.x0 < $0.x1 && $0.y0 < box.y1 && box.y0 < $0.y1 }
                            .count
                        score +=
                            markers.filter {
                                $0.0 - 8 < box.x1 && box.x0 < $0.0 + 8 && $0.1 - 8 < box.y1 && box.y0 < $0.1 + 8
                            }.count
                        if score < best.score { best = (score, dx, dy) }
                        if score == 0 { break search }
                    }
                }
                let chosen = (best.dx, best.dy)
                let bx = x + chosen.0
                let by = y + chosen.1
                placed.append((bx, by, bx + w, by + h))
                let ax = chosen.0 > 0 ? bx : bx + w
                svg.raw(
                    "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(ax))\" y2=\"\(f(by + h / 2))\" stroke=\"\(color)\" stroke-width=\"1\"/>\n"
                )
                svg.raw(
                    "<rect x=\"\(f(bx))\" y=\"\(f(by))\" width=\"\(f(w))\" height=\"\(f(h))\" rx=\"3\" fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"\(color)\"/>\n"
                )
                svg.raw(
                    "<text class=\"event-label\" x=\"\(f(bx + 4))\" y=\"\(f(by + 12.5))\" fill=\"#222\" font-family=\"monospace\" font-size=\"11\">\(xml(label))</text>\n"
                )
            }
            svg.raw("</g>\n")
        }
        svg.raw("</g>\n")
    }

    private func drawScaleBar(_ svg: inout SVGBuilder, _ frame: Frame) {
        let length = Self.niceLength(frame.metresAcross / 5)
        let px = length * frame.scale
        let x0 = frame.mapX + 16
        let y0 = frame.mapY + frame.mapH - 20
        let text = length >= 1_000 ? "\(JSONText.number(length / 1_000)) km" : "\(Int(length)) m"
        svg.raw("<g id=\"scale-bar\">\n")
        svg.raw(
            "<rect x=\"\(f(x0 - 6))\" y=\"\(f(y0 - 22))\" width=\"\(f(px + 12))\" height=\"34\" fill=\"#fff\" fill-opacity=\"0.85\" rx=\"3\"/>\n"
        )
        svg.raw("<rect x=\"\(f(x0))\" y=\"\(f(y0))\" width=\"\(f(px / 2))\" height=\"6\" fill=\"#222\"/>\n")
        svg.raw(
            "<rect x=\"\(f(x0 + px / 2))\" y=\"\(f(y0))\" width=\"\(f(px / 2))\" height=\"6\" fill=\"#fff\" stroke=\"#222\"/>\n"
        )
        svg.raw("<text x=\"\(f(x0))\" y=\"\(f(y0 - 6))\" font-size=\"12\" fill=\"#222\">0</text>\n")
        svg.raw(
            "<text x=\"\(f(x0 + px))\" y=\"\(f(y0 - 6))\" font-size=\"12\" text-anchor=\"middle\" fill=\"#222\">\(text)</text>\n"
        )
        svg.raw("</g>\n")
    }

    private func drawNorthArrow(_ svg: inout SVGBuilder, _ frame: Frame) {
        let x = frame.mapX + frame.mapW - 26
        let y = frame.mapY + 18
        svg.raw(
            "<g id=\"north\"><path d=\"M\(f(x)) \(f(y))L\(f(x + 8)) \(f(y + 22))L\(f(x)) \(f(y + 17))L\(f(x - 8)) \(f(y + 22))Z\" fill=\"#222\"/>"
        )
        svg.raw(
            "<text x=\"\(f(x))\" y=\"\(f(y + 36))\" font-size=\"12\" text-anchor=\"middle\" font-weight=\"bold\">N</text></g>\n"
        )
    }

    private func drawLegend(_ svg: inout SVGBuilder, _ frame: Frame, regionsDrawn: Int) {
        let x = frame.mapX + frame.mapW + 18
        var y = frame.mapY + 4
        svg.raw("<g id=\"legend\" font-size=\"13\" fill=\"#222\">\n")
        svg.raw("<text x=\"\(f(x))\" y=\"\(f(y + 12))\" font-weight=\"bold\" font-size=\"15\">Legend</text>\n")
        y += 34
        svg.raw(
            "<rect x=\"\(f(x))\" y=\"\(f(y - 11))\" width=\"22\" height=\"14\" fill=\"#5b8fd6\" fill-opacity=\"0.3\" stroke=\"#2f63ad\"/><text x=\"\(f(x + 30))\" y=\"\(f(y))\">region (\(regionsDrawn) shown)</text>\n"
        )
        y += 22
        svg.raw(
            "<rect x=\"\(f(x))\" y=\"\(f(y - 11))\" width=\"22\" height=\"14\" fill=\"#f6a623\" fill-opacity=\"0.3\" stroke=\"#c77c00\"/><text x=\"\(f(x + 30))\" y=\"\(f(y))\">region with events</text>\n"
        )
        y += 22
        for (kind, label) in [(TransitionEvent.Kind.enter, "enter"), (.exit, "exit"), (.dwell, "dwell")] {
            if kind == .dwell {
                svg.raw(
                    "<rect x=\"\(f(x + 5))\" y=\"\(f(y - 10))\" width=\"12\" height=\"12\" fill=\"\(Self.color(kind))\"/>"
                )
            } else {
                svg.raw("<circle cx=\"\(f(x + 11))\" cy=\"\(f(y - 4))\" r=\"6\" fill=\"\(Self.color(kind))\"/>")
            }
            let n = events.filter { $0.event.kind == kind }.count
            svg.raw("<text x=\"\(f(x + 30))\" y=\"\(f(y))\">\(label) event (\(n))</text>\n")
            y += 22
        }
        svg.raw(
            "<circle cx=\"\(f(x + 11))\" cy=\"\(f(y - 4))\" r=\"1.8\" fill=\"#333\"/><text x=\"\(f(x + 30))\" y=\"\(f(y))\">GPS fix</text>\n"
        )
        y += 30
        let range = colorRange()
        let caption = coloring == .speed ? "track colour: speed" : "track colour: time"
        svg.raw("<text x=\"\(f(x))\" y=\"\(f(y))\" font-weight=\"bold\">\(caption)</text>\n")
        y += 10
        let barW = 220.0
        let cell = barW / Double(Self.palette.count)
        for (i, c) in Self.palette.enumerated() {
            svg.raw(
                "<rect x=\"\(f(x + Double(i) * cell))\" y=\"\(f(y))\" width=\"\(f(cell + 0.5))\" height=\"12\" fill=\"\(c)\"/>"
            )
        }
        svg.raw("\n")
        y += 28
        let lo: String
        let hi: String
        if coloring == .speed {
            lo = String(format: "%.0f km/h", range.lo * 3.6)
            hi = String(format: "%.0f km/h", range.hi * 3.6)
        } else {
            lo = TimestampFormat.clockTime(Date(timeIntervalSinceReferenceDate: range.lo), in: timeZone)
            hi = TimestampFormat.clockTime(Date(timeIntervalSinceReferenceDate: range.hi), in: timeZone)
        }
        svg.raw(
            "<text x=\"\(f(x))\" y=\"\(f(y - 2))\" font-size=\"12\">\(lo)</text><text x=\"\(f(x + barW))\" y=\"\(f(y - 2))\" font-size=\"12\" text-anchor=\"end\">\(hi)</text>\n"
        )
        y += 26
        let fixes = tracks.reduce(0) { $0 + $1.fixCount }
        var lines = [
            "\(tracks.count) track\(tracks.count == 1 ? "" : "s"), \(fixes) fixes",
            "\(events.count) event\(events.count == 1 ? "" : "s")",
        ]
        let times = tracks.flatMap { [$0.points.first?.time, $0.points.last?.time] }.compactMap { $0 }
        if let t0 = times.min(), let t1 = times.max() {
            let tz = timeZone.abbreviation(for: Date(timeIntervalSinceReferenceDate: t0)) ?? ""
            lines.append(
                "\(TimestampFormat.clockTime(Date(timeIntervalSinceReferenceDate: t0), in: timeZone))–\(TimestampFormat.clockTime(Date(timeIntervalSinceReferenceDate: t1), in: timeZone)) \(tz)"
            )
        }
        lines.append("local projection, WGS84")
        for l in lines {
            svg.raw("<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"12\" fill=\"#444\">\(xml(l))</text>\n")
            y += 18
        }
        svg.raw("</g>\n")
    }

    // MARK: Colour

    func colorRange() -> (lo: Double, hi: Double) {
        switch coloring {
        case .speed:
            var speeds = tracks.flatMap { $0.points.compactMap(\.speed) }
            guard !speeds.isEmpty else { return (0, 1) }
            speeds.sort()
            let hi = speeds[min(speeds.count - 1, Int(Double(speeds.count) * 0.98))]
            return (0, max(hi, 0.5))
        case .time:
            let times = tracks.flatMap { $0.points.map(\.time) }
            guard let lo = times.min(), let hi = times.max(), hi > lo else { return (0, 1) }
            return (lo, hi)
        }
    }

    func colorBin(_ p: MapRecorder.Point, _ range: (lo: Double, hi: Double)) -> Int {
        let v: Double = coloring == .speed ? (p.speed ?? 0) : p.time
        let u = (v - range.lo) / (range.hi - range.lo)
        return min(Self.palette.count - 1, max(0, Int(u * Double(Self.palette.count))))
    }

    static func color(_ kind: TransitionEvent.Kind) -> String {
        switch kind {
        case .enter: enterColor
        case .exit: exitColor
        case .dwell: dwellColor
        }
    }

    /// 1, 2 or 5 × 10ⁿ metres, at most `metres` (at least 1 m).
    static func niceLength(_ metres: Double) -> Double {
        guard metres > 1 else { return 1 }
        let p = pow(10, (log10(metres)).rounded(.down))
        for m in [5.0, 2, 1] where m * p <= metres { return m * p }
        return p
    }
}

/// Short fixed-point text for SVG coordinates.
func f(_ v: Double) -> String {
    String(format: "%.1f", v)
}

/// XML text / attribute escaping.
func xml(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(c)
        }
    }
    return out
}
