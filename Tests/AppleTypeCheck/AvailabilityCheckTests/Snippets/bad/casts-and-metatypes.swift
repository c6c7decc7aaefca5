// A type named only in a cast, a metatype or an explicit generic argument is still used.
// expect: casts-and-metatypes.swift:8:
// expect: casts-and-metatypes.swift:9:
// expect: casts-and-metatypes.swift:11:
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

func isSession(_ value: Any) -> Bool { value is CLServiceSession }
func sessionType() -> Any.Type { CLServiceSession.self }
func noSessions() -> Int {
    Array<CLServiceSession>().count
}
