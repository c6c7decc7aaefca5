// A `guard #available` covers the rest of a `case` body, a `do` block, a `Task` closure; an
// `if #available` expression covers its branch.
import CoreLocation
@available(iOS 17, macOS 14, *)
func f(_ e: CLMonitor.Event, _ n: Int) throws -> Bool {
    switch n {
    case 0:
        guard #available(iOS 18, macOS 15, *) else { return false }
        return e.accuracyLimited
    default:
        do {
            guard #available(iOS 18, macOS 15, *) else { return false }
            return e.conditionUnsupported
        }
    }
}
@available(iOS 17, macOS 14, *)
func g(_ e: CLMonitor.Event) -> Bool {
    let x = if #available(iOS 18, macOS 15, *) { e.accuracyLimited } else { false }
    Task {
        guard #available(iOS 18, macOS 15, *) else { return }
        _ = e.authorizationDenied
    }
    return x
}
