// iOS 18 APIs of the standard library and Synchronization behind `#available`, and `&*`, a
// requirement Swift 6.0 added to the older FixedWidthInteger (its default serves iOS 17).
import Synchronization

func decoded(_ bytes: [UInt8]) -> String? {
    if #available(iOS 18.0, macOS 15.0, *) {
        let counter = Mutex(0)
        counter.withLock { $0 += 1 }
        return String(validating: bytes, as: UTF8.self)
    }
    return String(decoding: bytes, as: UTF8.self)
}

func scrambled(_ value: UInt64) -> UInt64 { value &* 0x9E37_79B9_7F4A_7C15 }
