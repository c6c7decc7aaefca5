// platforms: iOS=16.0 macOS=13.0
// Conforming to a protocol, constraining a generic parameter to it, extending it or using it as
// an existential or opaque type all need the protocol.
// expect: conformance-to-newer-protocol.swift:11:1: error: [iOS 16.0] 'CLCondition' is only available in iOS 17
// expect: conformance-to-newer-protocol.swift:13:1: error: [macOS 13.0] 'CLCondition' is only available in macOS 14
// expect: conformance-to-newer-protocol.swift:15:1: error: [iOS 16.0] 'CLCondition' is only available in iOS 17
// expect: conformance-to-newer-protocol.swift:17:1: error: [iOS 16.0] 'CLCondition' is only available in iOS 17
// expect: conformance-to-newer-protocol.swift:19:1: error: [iOS 16.0] 'CLCondition' is only available in iOS 17
import CoreLocation

struct Fence: CLCondition {}

func register<Condition: CLCondition>(_ condition: Condition) {}

extension CLCondition {}

func store(_ condition: any CLCondition) {}

func makeFence() -> some CLCondition { Fence() }
