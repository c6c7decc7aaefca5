// A type named only in a cast, a metatype, an explicit generic argument or a `where` clause is
// still used.
// expect: casts-and-metatypes.swift:10:
// expect: casts-and-metatypes.swift:11:
// expect: casts-and-metatypes.swift:14:
// expect: casts-and-metatypes.swift:17:
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

func isSession(_ value: Any) -> Bool { value is CLServiceSession }
func sessionType() -> Any.Type { CLServiceSession.self }
func noSessions() -> Int {
    // swift-format-ignore: UseShorthandTypeNames
    Array<CLServiceSession>().count
}

extension Array where Element == CLServiceSession {}
