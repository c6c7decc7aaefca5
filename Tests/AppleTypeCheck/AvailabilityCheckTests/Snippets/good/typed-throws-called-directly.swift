// Typed throws called, caught and passed as a parameter need no runtime metadata.
enum ParseError: Error { case bad }

func parse(_ text: String) throws(ParseError) -> Int {
    guard let value = Int(text) else { throw .bad }
    return value
}

func total(_ texts: [String]) -> Int {
    do throws(ParseError) {
        return try texts.map { (text: String) throws(ParseError) -> Int in try parse(text) }.reduce(0, +)
    } catch {
        return 0
    }
}
