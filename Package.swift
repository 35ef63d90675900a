// swift-tools-version: 6.1
import PackageDescription

/// Settings every target of Flowd shares: Swift 6 mode (strict concurrency), explicit existentials and an explicit
/// `Sendable` decision on every public type.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-Xfrontend", "-require-explicit-sendable"]),
]

let swiftLog: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "flowd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FlowCore", targets: ["FlowCore"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "MovieDemo", targets: ["MovieDemo"]),
        .executable(name: "flowd-demo", targets: ["flowd-demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: - Core
        .target(name: "FlowCore", dependencies: [swiftLog], swiftSettings: swiftSettings),

        // MARK: - ZeroMQ (the only targets that touch libzmq)
        .systemLibrary(name: "CZeroMQ", path: "Sources/CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ", swiftLog], swiftSettings: swiftSettings),

        // MARK: - Examples
        .target(
            name: "MovieDemo", dependencies: ["FlowCore", swiftLog], path: "Examples/MovieDemo",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "flowd-demo",
            dependencies: ["FlowCore", "MovieDemo", swiftLog],
            path: "Examples/flowd-demo",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        .testTarget(name: "FlowCoreTests", dependencies: ["FlowCore", swiftLog], swiftSettings: swiftSettings),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ", swiftLog], swiftSettings: swiftSettings),
        .testTarget(name: "MovieDemoTests", dependencies: ["MovieDemo", "FlowCore"], swiftSettings: swiftSettings),
    ]
)
