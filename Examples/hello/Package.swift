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
    ],
    targets: [
        // The flows: FlowCore only, so they build and are tested without the daemon.
        .target(name: "HelloFlows", dependencies: [.product(name: "FlowCore", package: "flowd")]),
        // The daemon: Flowd.main over the flows.
        .executableTarget(
            name: "hello-flowd",
            dependencies: ["HelloFlows", .product(name: "FlowDaemon", package: "flowd")]
        ),
        // The greeter's logic (a StepperLogic value), and the stepper service that runs it.
        .target(
            name: "HelloGreeter",
            dependencies: [
                "HelloFlows", .product(name: "FlowClient", package: "flowd"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "hello-service",
            dependencies: [
                "HelloGreeter", .product(name: "FlowClient", package: "flowd"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A headless presenter: prints what it shows, reports what is visible, does what its arguments say.
        .executableTarget(
            name: "hello-presenter",
            dependencies: [
                .product(name: "FlowClient", package: "flowd"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The flows and the greeter under an embedded daemon, with fake peers: no sockets, no processes.
        .testTarget(
            name: "HelloTests",
            dependencies: [
                "HelloFlows", "HelloGreeter",
                .product(name: "FlowdTesting", package: "flowd"),
                .product(name: "FlowCore", package: "flowd"),
                .product(name: "FlowFile", package: "flowd"),
            ]
        ),
    ]
)
