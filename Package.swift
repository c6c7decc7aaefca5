// swift-tools-version: 6.1
import PackageDescription

/// The server, the `geofence` tool and their dependencies (Hummingbird, PostgresNIO, SQLiteNIO, …)
/// come with the `Server` trait, on by default. An app that uses only the app products
/// (`Geodesy`, `GeoFormats`, `Geofencing`, `RegionMonitoring`, `RegionPlanner`,
/// `CoreLocationBridge`) depends on the package with `traits: []` and resolves none of them
/// (docs/ios.md; checked by Tests/LeanConsumer in CI).
let server: TargetDependencyCondition? = .when(traits: ["Server"])

let package = Package(
    name: "Geofence",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Geodesy", targets: ["Geodesy"]),
        .library(name: "GeoFormats", targets: ["GeoFormats"]),
        .library(name: "Geofencing", targets: ["Geofencing"]),
        .library(name: "RegionMonitoring", targets: ["RegionMonitoring"]),
        .library(name: "RegionPlanner", targets: ["RegionPlanner"]),
        .library(name: "GeofenceServer", targets: ["GeofenceServer"]),
        .library(name: "CoreLocationBridge", targets: ["CoreLocationBridge"]),
        .executable(name: "geofence", targets: ["geofence"]),
    ],
    traits: [
        .trait(name: "Server", description: "The geofence server and command-line tool, with their dependencies."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        .target(name: "Geodesy"),
        .target(name: "GeoFormats", dependencies: ["Geodesy"]),
        // Prefetch hints for the engine's batch path (Swift has no prefetch intrinsic).
        .target(name: "CPrefetch"),
        .target(name: "Geofencing", dependencies: ["Geodesy", "CPrefetch"]),
        .target(name: "RegionMonitoring", dependencies: ["Geofencing", "GeoFormats", "RegionPlanner"]),
        .target(name: "RegionPlanner", dependencies: ["Geodesy", "GeoFormats", "Geofencing"]),
        // Core Location behind the monitoring API; the files in Apple/ compile only where
        // Core Location exists (type-checked on Linux by Tests/AppleTypeCheck).
        .target(
            name: "CoreLocationBridge", dependencies: ["Geodesy", "Geofencing", "RegionMonitoring", "RegionPlanner"]),
        .target(
            name: "GeofenceServer",
            dependencies: [
                "Geodesy", "GeoFormats", "Geofencing", "RegionPlanner",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "SQLiteNIO", package: "sqlite-nio", condition: server),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: server),
                .product(name: "Metrics", package: "swift-metrics", condition: server),
                .product(name: "Prometheus", package: "swift-prometheus", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
            ],
            resources: [.copy("Resources")],
        ),
        .target(
            name: "GeofenceCLI",
            dependencies: [
                "Geodesy", "GeoFormats", "Geofencing", "RegionMonitoring", "RegionPlanner", "GeofenceServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: server),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
            ],
            resources: [.copy("Resources/Demo")]
        ),
        .executableTarget(name: "geofence", dependencies: ["GeofenceCLI"]),
        // The APNs stand-in (HTTP/2 over TLS, as strict as Apple's documentation): a library for
        // the tests, and a process the notification benchmark sends to (scripts/bench-notifications.sh).
        .target(
            name: "PushStandIns",
            dependencies: [
                "GeofenceServer",
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: server),
                .product(name: "NIOTLS", package: "swift-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
            ],
            path: "Tests/PushStandIns"),
        .executableTarget(name: "push-stand-in", dependencies: ["PushStandIns"], path: "Tests/PushStandInTool"),
        // Test support shared by the test targets: the drive harnesses' own executor, the
        // long tier's switch (README, "Tests").
        .target(name: "DriveSupport", path: "Tests/DriveSupport"),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GeoFormatsTests", dependencies: ["GeoFormats"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GeofencingTests", dependencies: ["Geofencing"], exclude: ["Evaluation/Recorded"]),
        .testTarget(
            name: "RegionMonitoringTests", dependencies: ["RegionMonitoring", "RegionPlanner", "DriveSupport"]),
        .testTarget(
            name: "RegionPlannerTests",
            dependencies: ["RegionPlanner", "RegionMonitoring", "Geofencing", "Geodesy", "DriveSupport"]),
        .testTarget(name: "GeofenceCLITests", dependencies: ["GeofenceCLI"]),
        .testTarget(
            name: "CoreLocationBridgeTests",
            dependencies: [
                "CoreLocationBridge", "Geofencing", "Geodesy", "RegionMonitoring", "RegionPlanner", "DriveSupport",
            ]),
        .testTarget(
            name: "GeofenceServerTests",
            dependencies: [
                "GeofenceServer", "Geodesy", "Geofencing", "RegionPlanner", "GeofenceCLI", "DriveSupport",
                "PushStandIns",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                // The APNs and FCM stand-ins: HTTP/2 over TLS, and the keys they check signatures with.
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: server),
                .product(name: "NIOTLS", package: "swift-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: server),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
