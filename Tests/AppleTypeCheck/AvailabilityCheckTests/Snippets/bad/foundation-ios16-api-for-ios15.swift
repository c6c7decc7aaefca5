// platforms: iOS=15.0 macOS=12.0
// URL.currentDirectory() is iOS 16 / macOS 13 (FoundationAvailability.tsv).
// Xcode: 'currentDirectory()' is only available in iOS 16.0 or newer
// expect: iOS 15.0] 'URL.currentDirectory()' is only available in iOS 16.0 or newer
// expect: macOS 12.0] 'URL.currentDirectory()' is only available in macOS 13.0 or newer
import Foundation

func here() -> URL { URL.currentDirectory() }
