// The standard library's own availability: String(validating:as:) is iOS 18 / macOS 15.
// Xcode: 'init(validating:as:)' is only available in iOS 18.0 or newer
// expect: iOS 17.0] 'String.init(validating:as:)' is only available in iOS 18.0 or newer
// expect: macOS 14.0] 'String.init(validating:as:)' is only available in macOS 15.0 or newer
func decoded(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
