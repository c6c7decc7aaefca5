// Stub of the part of SwiftUI the example app uses (see CoreLocationStub/CLLocation.swift for
// the rules: Apple's names, signatures and `@available`, each with its developer.apple.com
// page). SwiftUI's protocols are `@MainActor @preconcurrency` in the iOS 18 SDK, as here.
// A view the example starts to use that is missing here fails the check as a name it cannot
// find: add it, with its page.
@_exported import Combine
import Foundation

func stub() -> Never { fatalError("SwiftUI stub: type-checking only") }

/// https://developer.apple.com/documentation/swiftui/view — iOS 13.0+ macOS 10.15+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Never: View {
    public typealias Body = Never
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/viewbuilder — iOS 13.0+ macOS 10.15+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@resultBuilder
public struct ViewBuilder {
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock()
    public static func buildBlock() -> EmptyView { stub() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-4vz7m — iOS 17.0+ (packs)
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public static func buildBlock<each Content: View>(
        _ content: repeat each Content
    ) -> TupleView<(repeat each Content)> {
        stub()
    }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-9z9l1
    public static func buildBlock<Content: View>(_ content: Content) -> Content { stub() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildexpression(_:)
    public static func buildExpression<Content: View>(_ content: Content) -> Content { stub() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildif(_:)
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { stub() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(first:)
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { stub() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(second:)
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { stub() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildlimitedavailability(_:) — iOS 14.0+
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { stub() }
}

/// https://developer.apple.com/documentation/swiftui/emptyview — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct EmptyView: View {
    public init() {}
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/anyview — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct AnyView: View {
    public init<V: View>(_ view: V) { stub() }
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/tupleview — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct TupleView<T>: View {
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/_conditionalcontent — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swift/optional (View conformance) — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Optional: View where Wrapped: View {
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/localizedstringkey — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    public init(_ value: String) { stub() }
    public init(stringLiteral value: String) { stub() }
}
