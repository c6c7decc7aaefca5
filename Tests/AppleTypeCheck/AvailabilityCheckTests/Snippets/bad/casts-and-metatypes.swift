// A type named only in a cast, a metatype, an explicit generic argument or a `where` clause is
// still used.
// expect: casts-and-metatypes.swift:10:
// expect: casts-and-metatypes.swift:11:
// expect: casts-and-metatypes.swift:13:
// expect: casts-and-metatypes.swift:16:
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

func isSession(_ value: Any) -> Bool { value is CLServiceSession }
func sessionType() -> Any.Type { CLServiceSession.self }
func noSessions() -> Int {
    Array<CLServiceSession>().count
}

extension Array where Element == CLServiceSession {}
