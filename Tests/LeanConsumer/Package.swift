// swift-tools-version: 6.1
// An app's package, as docs/ios.md tells apps to write it: the three app products, the
// package's `Server` trait off. `check.sh` (run by .ci/run) fails if resolving it lists any of
// the server's dependencies.
import PackageDescription

let package = Package(
    name: "LeanConsumer",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(name: "Geofence", path: "../..", traits: [])],
    targets: [
        .target(
            name: "ShopApp",
            dependencies: [
                .product(name: "CoreLocationBridge", package: "Geofence"),
                .product(name: "RegionMonitoring", package: "Geofence"),
                .product(name: "RegionPlanner", package: "Geofence"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
