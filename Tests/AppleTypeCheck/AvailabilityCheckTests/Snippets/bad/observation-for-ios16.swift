// platforms: iOS=16.0 macOS=13.0
// Observation is iOS 17 / macOS 14 (the toolchain's Observation module).
// Xcode: 'withObservationTracking(_:onChange:)' is only available in iOS 17.0 or newer
// expect: iOS 16.0] 'withObservationTracking(_:onChange:)' is only available in iOS 17.0 or newer
import Observation

func track(_ read: () -> Void) { withObservationTracking(read, onChange: {}) }
