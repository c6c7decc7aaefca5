import Foundation

/// The rule for ``Monitor`` names (docs/monitoring.md rule 22), checked when a monitor is opened.
///
/// Apple's `CLMonitorConfiguration.name`: it "can contain only alphanumeric characters and
/// can't start with an underscore (_)". We accept letters, digits and underscores, not
/// leading, up to ``maximumUTF8Count`` bytes: the name is also the store's file name
/// (`<name>.monitor.json`, plus the temporary name of an atomic write), and file systems
/// allow 255 bytes per name.
package enum MonitorName {
    /// The longest name, in UTF-8 bytes.
    package static let maximumUTF8Count = 128

    package static func validate(_ name: String) throws(MonitoringError) {
        guard let first = name.unicodeScalars.first, first != "_",
            name.unicodeScalars.allSatisfy({ $0 == "_" || CharacterSet.alphanumerics.contains($0) })
        else {
            throw .invalidName(name)
        }
        let bytes = name.utf8.count
        guard bytes <= maximumUTF8Count else {
            throw .nameTooLong(name: name, utf8Count: bytes, limit: maximumUTF8Count)
        }
    }
}
