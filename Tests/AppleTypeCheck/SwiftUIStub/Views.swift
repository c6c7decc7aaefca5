// Views and modifiers of the SwiftUI stub (see View.swift).
import Foundation

/// https://developer.apple.com/documentation/swiftui/text — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Text: View, Equatable, Sendable {
    /// https://developer.apple.com/documentation/swiftui/text/init(_:tablename:bundle:comment:)
    public init(_ key: LocalizedStringKey) { stub() }
    /// https://developer.apple.com/documentation/swiftui/text/init(_:)-9d1g4
    public init<S: StringProtocol>(_ content: S) { stub() }
    /// https://developer.apple.com/documentation/swiftui/text/init(verbatim:)
    public init(verbatim content: String) { stub() }
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/buttonrole — iOS 15.0+ macOS 12.0+
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public struct ButtonRole: Equatable, Sendable {
    /// https://developer.apple.com/documentation/swiftui/buttonrole/destructive
    public static let destructive = ButtonRole()
    /// https://developer.apple.com/documentation/swiftui/buttonrole/cancel
    public static let cancel = ButtonRole()
}

/// https://developer.apple.com/documentation/swiftui/button — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Button<Label: View>: View {
    /// https://developer.apple.com/documentation/swiftui/button/init(action:label:)
    public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) { stub() }
    public var body: Never { stub() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Button where Label == Text {
    /// https://developer.apple.com/documentation/swiftui/button/init(_:action:)-1asy8
    public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) { stub() }
    /// https://developer.apple.com/documentation/swiftui/button/init(_:action:)-lpm7
    public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) { stub() }
    /// https://developer.apple.com/documentation/swiftui/button/init(_:role:action:)-93ek6 — iOS 15.0+
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public init(_ titleKey: LocalizedStringKey, role: ButtonRole?, action: @escaping @MainActor () -> Void) {
        stub()
    }
    /// https://developer.apple.com/documentation/swiftui/button/init(_:role:action:)-4ctkc — iOS 15.0+
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public init<S: StringProtocol>(_ title: S, role: ButtonRole?, action: @escaping @MainActor () -> Void) {
        stub()
    }
}

/// https://developer.apple.com/documentation/swiftui/label — iOS 14.0+ macOS 11.0+
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct Label<Title: View, Icon: View>: View {
    public var body: Never { stub() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension Label where Title == Text, Icon == Image {
    /// https://developer.apple.com/documentation/swiftui/label/init(_:systemimage:)-7gqxd
    public init(_ titleKey: LocalizedStringKey, systemImage name: String) { stub() }
    /// https://developer.apple.com/documentation/swiftui/label/init(_:systemimage:)-9f8ap
    public init<S: StringProtocol>(_ title: S, systemImage name: String) { stub() }
}

/// https://developer.apple.com/documentation/swiftui/image — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Image: View, Equatable, Sendable {
    /// https://developer.apple.com/documentation/swiftui/image/init(systemname:)
    public init(systemName: String) { stub() }
    public var body: Never { stub() }
}

/// https://developer.apple.com/documentation/swiftui/labeledcontent — iOS 16.0+ macOS 13.0+
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public struct LabeledContent<Label: View, Content: View>: View {
    public var body: Never { stub() }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension LabeledContent where Label == Text, Content == Text {
    /// https://developer.apple.com/documentation/swiftui/labeledcontent/init(_:value:)-6ubd4
    public init<S: StringProtocol>(_ titleKey: LocalizedStringKey, value: S) { stub() }
}

/// https://developer.apple.com/documentation/swiftui/section — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Section<Parent, Content, Footer> {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Section: View where Parent: View, Content: View, Footer: View {
    public var body: Never { stub() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Section where Parent == EmptyView, Content: View, Footer == EmptyView {
    /// https://developer.apple.com/documentation/swiftui/section/init(content:)
    public init(@ViewBuilder content: () -> Content) { stub() }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
extension Section where Parent == Text, Content: View, Footer == EmptyView {
    /// https://developer.apple.com/documentation/swiftui/section/init(_:content:)-90be4 — iOS 15.0+
    public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) { stub() }
    /// https://developer.apple.com/documentation/swiftui/section/init(_:content:)-7uhlb — iOS 15.0+
    public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) { stub() }
}

/// https://developer.apple.com/documentation/swiftui/list — iOS 13.0+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct List<SelectionValue: Hashable, Content: View>: View {
    public var body: Never { stub() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension List where SelectionValue == Never {
    /// https://developer.apple.com/documentation/swiftui/list/init(content:)
    public init(@ViewBuilder content: () -> Content) { stub() }
}

/// https://developer.apple.com/documentation/swiftui/navigationpath — iOS 16.0+ macOS 13.0+
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public struct NavigationPath {}

/// https://developer.apple.com/documentation/swiftui/navigationstack — iOS 16.0+ macOS 13.0+
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public struct NavigationStack<Data, Root: View>: View {
    public var body: Never { stub() }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension NavigationStack where Data == NavigationPath {
    /// https://developer.apple.com/documentation/swiftui/navigationstack/init(root:)
    public init(@ViewBuilder root: () -> Root) { stub() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    /// https://developer.apple.com/documentation/swiftui/view/navigationtitle(_:)-avgj — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { self }
    /// https://developer.apple.com/documentation/swiftui/view/navigationtitle(_:)-5di1u — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public func navigationTitle<S: StringProtocol>(_ title: S) -> some View { self }
    /// https://developer.apple.com/documentation/swiftui/view/onchange(of:initial:_:)-4psgg — iOS 17.0+ macOS 14.0+
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View { self }
    /// https://developer.apple.com/documentation/swiftui/view/onchange(of:initial:_:)-8wgw9 — iOS 17.0+ macOS 14.0+
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping () -> Void) -> some View
    {
        self
    }
    /// https://developer.apple.com/documentation/swiftui/view/onchange(of:perform:) — iOS 14.0–17.0 (deprecated)
    @available(
        iOS, introduced: 14.0, deprecated: 17.0,
        message: "Use `onChange` with a two or zero parameter action closure instead."
    )
    @available(
        macOS, introduced: 11.0, deprecated: 14.0,
        message: "Use `onChange` with a two or zero parameter action closure instead."
    )
    public func onChange<V: Equatable>(of value: V, perform action: @escaping (_ newValue: V) -> Void) -> some View {
        self
    }
    /// https://developer.apple.com/documentation/swiftui/view/onreceive(_:perform:) — iOS 13.0+
    public func onReceive<P: Publisher>(_ publisher: P, perform action: @escaping (P.Output) -> Void) -> some View
    where P.Failure == Never { self }
    /// https://developer.apple.com/documentation/swiftui/view/task(priority:_:) — iOS 15.0+ macOS 12.0+
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func task(
        priority: TaskPriority = .userInitiated, _ action: @escaping @MainActor @Sendable () async -> Void
    ) -> some View { self }
}
