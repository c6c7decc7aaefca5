// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Geofence",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Geodesy", targets: ["Geodesy"]),
        .library(name: "GeoFormats", targets: ["GeoFormats"]),
        .library(name: "Geofencing", targets: ["Geofencing"]),
        .library(name: "RegionMonitoring", targets: ["RegionMonitoring"]),
        .library(name: "RegionPlanner", targets: ["RegionPlanner"]),
        .executable(name: "geofence", targets: ["geofence"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "Geodesy"),
        .target(name: "GeoFormats", dependencies: ["Geodesy"]),
        .target(name: "Geofencing", dependencies: ["Geodesy"]),
        .target(name: "RegionMonitoring", dependencies: ["Geofencing", "GeoFormats"]),
        .target(name: "RegionPlanner", dependencies: ["Geodesy", "Geofencing"]),
        .target(
            name: "GeofenceCLI",
            dependencies: [
                "Geodesy", "GeoFormats", "Geofencing", "RegionMonitoring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources/Demo")]
        ),
        .executableTarget(name: "geofence", dependencies: ["GeofenceCLI"]),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GeoFormatsTests", dependencies: ["GeoFormats"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GeofencingTests", dependencies: ["Geofencing"]),
        .testTarget(name: "RegionMonitoringTests", dependencies: ["RegionMonitoring"]),
        .testTarget(name: "RegionPlannerTests", dependencies: ["RegionPlanner", "Geofencing", "Geodesy"]),
        .testTarget(name: "GeofenceCLITests", dependencies: ["GeofenceCLI"]),
    ],
    swiftLanguageModes: [.v6]
)
