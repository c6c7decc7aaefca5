// platforms: iOS=16.0 macOS=13.0
// Conformances and constraints under a matching `@available`.
import CoreLocation

@available(iOS 17, macOS 14, *)
struct Fence: CLCondition {}

@available(iOS 17, macOS 14, *)
func register<Condition: CLCondition>(_ condition: Condition) -> any CLCondition { condition }
