import Foundation

/// `application/x-www-form-urlencoded` text (a query string or a form body) as a dictionary:
/// `+` is a space, `%XX` escapes are decoded, the first of repeated names wins, and a pair
/// whose name or value is not valid percent-encoded UTF-8 is a problem naming it.
enum FormParameters {
    static func decode(_ text: Substring) throws(Problem) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(parts[0], naming: parts[0])
            let value = parts.count > 1 ? try decodeComponent(parts[1], naming: parts[0]) : ""
            if parameters[name] == nil { parameters[name] = value }
        }
        return parameters
    }

    private static func decodeComponent(_ text: Substring, naming name: Substring) throws(Problem) -> String {
        guard let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
            throw Problem.badRequest(
                field: String(name.prefix(64)),
                detail: "parameter \(name.prefix(64)) is not valid percent-encoded UTF-8")
        }
        return decoded
    }
}
