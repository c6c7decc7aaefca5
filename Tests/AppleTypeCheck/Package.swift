// swift-tools-version: 6.1
// Type-checks CoreLocationBridge's Apple-only files on Linux against a stub of the Core
// Location declarations they use (CoreLocationStub/, Apple's signatures with a link to each
// page). The stub module is named CoreLocation, so `canImport(CoreLocation)` holds here and
// the files compile as they would on an iPhone. `.ci/run` builds this package, then runs
// check-apple.py, which checks every file an app compiles against these modules; nothing runs. The package is used with its `Server` trait off, as
// an app uses it. Stubs build with library evolution, as Apple's SDK modules do (their enums are
// open: a switch needs `@unknown default`).
import PackageDescription

let sdkModule: [SwiftSetting] = [.unsafeFlags(["-enable-library-evolution", "-suppress-warnings"])]

let package = Package(
    name: "AppleTypeCheck",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(name: "Geofence", path: "../..", traits: [])],
    targets: [
        .target(name: "CoreLocation", path: "CoreLocationStub", swiftSettings: sdkModule),
        .target(name: "UIKit", path: "UIKitStub", swiftSettings: sdkModule),
        .target(name: "UserNotifications", path: "UserNotificationsStub", swiftSettings: sdkModule),
        // `Apple` is a link to ../../Sources/CoreLocationBridge/Apple: the very files that ship.
        .target(
            name: "CoreLocationBridgeApple",
            dependencies: [
                "CoreLocation",
                .product(name: "CoreLocationBridge", package: "Geofence"),
                .product(name: "RegionMonitoring", package: "Geofence"),
                .product(name: "Geofencing", package: "Geofence"),
                .product(name: "Geodesy", package: "Geofence"),
            ],
            path: "Apple",
            swiftSettings: [.define("APPLE_TYPECHECK")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
