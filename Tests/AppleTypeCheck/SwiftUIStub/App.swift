// Apps, scenes and the environment of the SwiftUI stub (see View.swift).
import Foundation
import UIKit

/// https://developer.apple.com/documentation/swiftui/app — iOS 14.0+ macOS 11.0+
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@MainActor @preconcurrency
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension App {
    /// https://developer.apple.com/documentation/swiftui/app/main() — what `@main` calls
    @MainActor @preconcurrency public static func main() { stub() }
}

/// https://developer.apple.com/documentation/swiftui/scene — iOS 14.0+ macOS 11.0+
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@MainActor @preconcurrency
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension Never: Scene {}

/// https://developer.apple.com/documentation/swiftui/scenebuilder — iOS 14.0+ macOS 11.0+
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@resultBuilder
public struct SceneBuilder {
    /// https://developer.apple.com/documentation/swiftui/scenebuilder/buildblock(_:)
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { stub() }
}

/// https://developer.apple.com/documentation/swiftui/windowgroup — iOS 14.0+ macOS 11.0+
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct WindowGroup<Content: View>: Scene {
    /// https://developer.apple.com/documentation/swiftui/windowgroup/init(content:)
    public init(@ViewBuilder content: () -> Content) { stub() }
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/dynamicproperty — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol DynamicProperty {}

/// https://developer.apple.com/documentation/swiftui/uiapplicationdelegateadaptor — iOS 14.0+, no macOS
@available(iOS 14.0, tvOS 14.0, *)
@available(macOS, unavailable)
@MainActor @preconcurrency @propertyWrapper
public struct UIApplicationDelegateAdaptor<DelegateType: NSObject & UIApplicationDelegate>: DynamicProperty {
    /// https://developer.apple.com/documentation/swiftui/uiapplicationdelegateadaptor/init(_:)-59sfu
    public init(_ delegateType: DelegateType.Type = DelegateType.self) { stub() }
    /// https://developer.apple.com/documentation/swiftui/uiapplicationdelegateadaptor/wrappedvalue
    public var wrappedValue: DelegateType { stub() }
}

/// https://developer.apple.com/documentation/swiftui/environmentvalues — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct EnvironmentValues {
    /// https://developer.apple.com/documentation/swiftui/environmentvalues/scenephase — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public var scenePhase: ScenePhase { stub() }
}

/// https://developer.apple.com/documentation/swiftui/scenephase — iOS 14.0+ macOS 11.0+
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public enum ScenePhase: Comparable, Hashable, Sendable {
    case background, inactive, active
}

/// https://developer.apple.com/documentation/swiftui/environment — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper
public struct Environment<Value>: DynamicProperty {
    /// https://developer.apple.com/documentation/swiftui/environment/init(_:)-8slkf
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { stub() }
    /// https://developer.apple.com/documentation/swiftui/environment/wrappedvalue
    public var wrappedValue: Value { stub() }
}
