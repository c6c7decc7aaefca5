// Stub of the part of Combine an app's SwiftUI code uses (see CoreLocationStub/CLLocation.swift
// for the rules: Apple's names, signatures and `@available`, each with its page). SwiftUI
// re-exports Combine, so `import SwiftUI` sees these too. Apple declares
// `NotificationCenter.publisher(for:object:)` in Foundation's Combine overlay; Linux's Foundation
// has no Combine, so it is stubbed here.
import Foundation

private func stub() -> Never { fatalError("Combine stub: type-checking only") }

/// https://developer.apple.com/documentation/combine/publisher — iOS 13.0+ macOS 10.15+
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
}

extension NotificationCenter {
    /// https://developer.apple.com/documentation/foundation/notificationcenter/publisher — iOS 13.0+ macOS 10.15+
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
    public struct Publisher: Combine.Publisher {
        public typealias Output = Notification
        public typealias Failure = Never
    }

    /// https://developer.apple.com/documentation/foundation/notificationcenter/publisher(for:object:)
    /// — iOS 13.0+ macOS 10.15+
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        stub()
    }
}
