// swift-tools-version: 6.1
import PackageDescription

// Flowd is a path dependency here because this example lives in Flowd's repository; a package of your own names
// Flowd's path or its git URL instead.
let package = Package(
    name: "hello",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "flowd", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The flows: FlowCore only, so they build and are tested without the daemon.
        .target(name: "HelloFlows", dependencies: [.product(name: "FlowCore", package: "flowd")]),
        // The daemon: Flowd.main over the flows.
        .executableTarget(
            name: "hello-flowd",
            dependencies: ["HelloFlows", .product(name: "FlowDaemon", package: "flowd")]
        ),
        // A stepper service: FlowClient's StepperService running a StepperLogic.
        .executableTarget(
            name: "hello-service",
            dependencies: [
                "HelloFlows",
                .product(name: "FlowClient", package: "flowd"),
                .product(name: "FlowCore", package: "flowd"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A headless presenter: prints what it shows, reports what is visible, does what its arguments say.
        .executableTarget(
            name: "hello-presenter",
            dependencies: [
                .product(name: "FlowClient", package: "flowd"),
                .product(name: "FlowCore", package: "flowd"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "HelloFlowsTests",
            dependencies: ["HelloFlows", .product(name: "FlowCore", package: "flowd")]
        ),
    ]
)
