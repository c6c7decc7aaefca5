// A function type throwing a concrete error type, as a generic argument, needs the iOS 18 /
// macOS 15 runtime for its metadata.
// Xcode: runtime support for typed throws function types is only available in iOS 18.0.0 or newer
// expect: iOS 17.0] runtime support for typed throws function types is only available in iOS 18.0.0 or newer
// expect: macOS 14.0] runtime support for typed throws function types is only available in macOS 15.0.0 or newer
enum ParseError: Error { case bad }

func parse() throws(ParseError) {}

func steps() -> [() throws(ParseError) -> Void] { [parse] }
