// Computed properties, subscripts, methods, initializers, static and global stored properties
// may be newer than their type: their bodies, types and initial values are in their scope.
import CoreLocation

struct Sessions {
    @available(iOS 18, *)
    @available(macOS, unavailable)
    var fresh: CLServiceSession { CLServiceSession(authorization: .none) }

    @available(iOS 18, *)
    @available(macOS, unavailable)
    subscript(requirement: CLServiceSession.AuthorizationRequirement) -> CLServiceSession {
        CLServiceSession(authorization: requirement)
    }

    @available(iOS 18, *)
    @available(macOS, unavailable)
    static let shared = CLServiceSession(authorization: .whenInUse)

    @available(iOS 18, *)
    @available(macOS, unavailable)
    init(session: CLServiceSession) { session.invalidate() }

    @available(iOS 18, macOS 15, *)
    @MainActor var onMain: Int { 1 }

    init() {}
}

@available(iOS 18, *)
@available(macOS, unavailable)
let globalSession = CLServiceSession(authorization: .none)

@available(iOS 17, macOS 14, *)
func outer(_ event: CLMonitor.Event) -> Bool {
    @available(iOS 18, macOS 15, *)
    func inner() -> Bool { event.accuracyLimited }
    if #available(iOS 18, macOS 15, *) { return inner() }
    return false
}
