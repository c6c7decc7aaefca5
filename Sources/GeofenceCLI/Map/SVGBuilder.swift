/// Accumulates an SVG document's text.
struct SVGBuilder {
    var text = ""
    let width: Double
    let height: Double

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
        text.reserveCapacity(1 << 16)
    }

    mutating func open(title: String) {
        text += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        text += "<title>\(xml(title))</title>\n"
        text += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
    }

    mutating func raw(_ s: String) { text += s }

    mutating func close() { text += "</svg>\n" }
}
