// An override newer than what it overrides: a call through the base class would reach it
// where it does not exist.
// Xcode: overriding 'start()' must be as available as declaration it overrides
// expect: iOS 17.0] 'start': overriding 'Base.start' must be as available as declaration it overrides
// expect: macOS 14.0] 'start': overriding 'Base.start' must be as available as declaration it overrides
open class Base {
    open func start() {}
}

final class Derived: Base {
    @available(iOS 18.0, macOS 15.0, *)
    override func start() {}
}
