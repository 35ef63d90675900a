// swift-tools-version: 6.1
import PackageDescription

/// Settings every target of Flowd shares: Swift 6 mode (strict concurrency), explicit existentials and an explicit
/// `Sendable` decision on every public type.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-Xfrontend", "-require-explicit-sendable"]),
]

let swiftLog: Target.Dependency = .product(name: "Logging", package: "swift-log")
let deque: Target.Dependency = .product(name: "DequeModule", package: "swift-collections")
let heap: Target.Dependency = .product(name: "HeapModule", package: "swift-collections")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let metrics: [Target.Dependency] = [
    .product(name: "Metrics", package: "swift-metrics"),
    .product(name: "Prometheus", package: "swift-prometheus"),
]
let serviceLifecycle: [Target.Dependency] = [
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    .product(name: "UnixSignals", package: "swift-service-lifecycle"),
]

let package = Package(
    name: "flowd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FlowCore", targets: ["FlowCore"]),
        .library(name: "FlowWire", targets: ["FlowWire"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "FlowDaemon", targets: ["FlowDaemon"]),
        .library(name: "FlowClient", targets: ["FlowClient"]),
        .library(name: "FlowdTesting", targets: ["FlowdTesting"]),
        .library(name: "FlowClientTesting", targets: ["FlowClientTesting"]),
        .library(name: "FlowFile", targets: ["FlowFile"]),
        .executable(name: "flowctl", targets: ["flowctl"]),
        .executable(name: "flowd", targets: ["flowd"]),
        .library(name: "MovieVocabulary", targets: ["MovieVocabulary"]),
        .library(name: "MovieDemo", targets: ["MovieDemo"]),
        .library(name: "MovieServices", targets: ["MovieServices"]),
        .executable(name: "movie-flowd", targets: ["movie-flowd"]),
        .executable(name: "flowd-demo", targets: ["flowd-demo"]),
        .executable(name: "login-service", targets: ["login-service"]),
        .executable(name: "movie-service", targets: ["movie-service"]),
        .executable(name: "movie-presenter", targets: ["movie-presenter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // MARK: - Core
        .target(
            name: "FlowCore", dependencies: [swiftLog, .product(name: "OrderedCollections", package: "swift-collections")],
            swiftSettings: swiftSettings),

        // The platform's C library (Glibc, Musl or Darwin), chosen once for every file that calls POSIX.
        .target(name: "LibC", swiftSettings: swiftSettings),

        // MARK: - Wire protocol (pure: messages and their codec)
        .target(name: "FlowWire", dependencies: ["FlowCore", "LibC"], swiftSettings: swiftSettings),

        // MARK: - ZeroMQ (the only targets that touch libzmq)
        .systemLibrary(name: "CZeroMQ", path: "Sources/CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ", "LibC", swiftLog, deque], swiftSettings: swiftSettings),

        // MARK: - Daemon
        // CRC-32C with the CPU's instruction, for the journal's frames and snapshot (FlowDaemon's CRC32C).
        .target(name: "CCRC32C", path: "Sources/CCRC32C"),
        // `accept`/`accept4` that close a connection at the descriptor limit instead of failing with `EMFILE`, on
        // which libzmq's IPC listener aborts the process (FlowDaemon's AcceptGuard).
        .target(name: "CAcceptGuard", path: "Sources/CAcceptGuard"),
        .target(
            name: "FlowDaemon",
            dependencies: [
                "FlowCore", "FlowWire", "ZeroMQ", "LibC", "CCRC32C", "CAcceptGuard", swiftLog,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                deque,
                heap,
            ] + metrics,
            swiftSettings: swiftSettings
        ),

        // MARK: - Clients
        .target(
            name: "FlowClient",
            dependencies: ["FlowCore", "FlowWire", "ZeroMQ", "LibC", swiftLog, deque, heap, argumentParser] + serviceLifecycle,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "flowctl",
            dependencies: [
                "FlowClient", "FlowWire", "FlowCore", "FlowFile", swiftLog,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Flow files (an app declared in YAML or JSON: its model, checks and graph)
        .target(
            name: "FlowFile", dependencies: ["FlowCore", "FlowWire", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // The stock daemon: `flowd --app FILE` runs the application a flow file declares.
        .executableTarget(name: "flowd", dependencies: ["FlowDaemon", "FlowFile"], swiftSettings: swiftSettings),

        // MARK: - Testing kit
        // An embedded daemon (no sockets), fake stepper and presenter peers and a manual clock, for apps' and
        // services' tests; also locates built executables for tests that start processes.
        .target(
            name: "FlowdTesting", dependencies: ["FlowDaemon", "FlowClient", "FlowWire", "FlowCore", swiftLog, deque],
            swiftSettings: swiftSettings
        ),
        // A scripted daemon over real sockets, for a service's or a presenter's tests of its FlowClient code; apart
        // from FlowdTesting so that a service's tests link FlowClient and not the daemon.
        .target(
            name: "FlowClientTesting", dependencies: ["FlowClient", "FlowWire", "ZeroMQ", swiftLog],
            swiftSettings: swiftSettings
        ),

        // MARK: - Examples
        // What the demo's processes agree on: step names, actions, stepper kinds, screen ids and types, the catalogue.
        .target(
            name: "MovieVocabulary", dependencies: ["FlowCore"], path: "Examples/MovieVocabulary",
            swiftSettings: swiftSettings
        ),
        // The demo's flows (run by movie-flowd and flowd-demo).
        .target(
            name: "MovieDemo", dependencies: ["MovieVocabulary", "FlowCore", swiftLog], path: "Examples/MovieDemo",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MovieServices", dependencies: ["MovieVocabulary", "FlowCore"], path: "Examples/MovieServices",
            swiftSettings: swiftSettings
        ),
        // The services' logic (MovieServices, in the demo's own attachment types) as FlowClient's StepperLogic, and
        // the login service's options.
        .target(
            name: "ExampleSupport",
            dependencies: ["FlowClient", "FlowWire", "MovieServices", "FlowCore", swiftLog, argumentParser],
            path: "Examples/ExampleSupport", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "login-service", dependencies: ["ExampleSupport", "FlowClient", argumentParser],
            path: "Examples/login-service", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "movie-service", dependencies: ["ExampleSupport", "FlowClient", argumentParser],
            path: "Examples/movie-service", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "movie-presenter",
            dependencies: ["FlowClient", "FlowWire", "FlowCore", "MovieVocabulary", swiftLog, argumentParser]
                + serviceLifecycle,
            path: "Examples/movie-presenter", swiftSettings: swiftSettings
        ),
        // The daemon running the movie demo (`MovieDemoApplication`).
        .executableTarget(
            name: "movie-flowd", dependencies: ["FlowDaemon", "MovieDemo"], path: "Examples/movie-flowd",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "flowd-demo",
            dependencies: ["FlowCore", "MovieDemo", "MovieVocabulary", swiftLog],
            path: "Examples/flowd-demo",
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks
        // The benchmark's floor: a relay of the same frames and sizes written in C on libzmq (no Swift wrapper).
        .target(name: "CZMQRelay", path: "Benchmarks/CZMQRelay", linkerSettings: [.linkedLibrary("zmq")]),
        .executableTarget(
            name: "flowd-bench",
            dependencies: [
                "FlowDaemon", "FlowClient", "FlowWire", "FlowCore", "ZeroMQ", "CZMQRelay", "MovieDemo", swiftLog,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + metrics,
            path: "Benchmarks/flowd-bench",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        // A libzmq listener with every descriptor taken, with and without the accept guard (AcceptGuardProcessTests).
        .executableTarget(
            name: "accept-guard-probe", dependencies: ["CAcceptGuard"], path: "Tests/accept-guard-probe",
            linkerSettings: [.linkedLibrary("zmq")]
        ),
        // The application the daemon's tests and fuzzers run.
        .target(name: "TestFlows", dependencies: ["FlowCore"], path: "Tests/TestFlows", swiftSettings: swiftSettings),
        // The processes the tests start, with posix_spawn, not Foundation's Process (Tests/TestProcesses/Spawn.swift).
        .target(name: "TestProcesses", path: "Tests/TestProcesses", swiftSettings: swiftSettings),
        .testTarget(name: "FlowCoreTests", dependencies: ["FlowCore", "TestFlows", swiftLog], swiftSettings: swiftSettings),
        // Sample messages of every type, the round trips of FlowWireTests and the seeds of FlowFuzzTests.
        .target(
            name: "WireSamples", dependencies: ["FlowWire", "FlowCore"], path: "Tests/WireSamples",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "FlowWireTests", dependencies: ["FlowWire", "FlowCore", "WireSamples"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FlowDaemonTests",
            dependencies: [
                "FlowDaemon", "FlowClient", "FlowClientTesting", "FlowWire", "FlowCore", "FlowdTesting", "TestFlows",
                swiftLog,
            ]
                + metrics + [serviceLifecycle[0]],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FlowClientTests",
            dependencies: [
                "FlowClient", "FlowClientTesting", "FlowWire", "FlowCore", "ZeroMQ", swiftLog, argumentParser,
                serviceLifecycle[0],
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FlowFileTests",
            dependencies: ["FlowFile", "FlowCore", "MovieVocabulary", "FlowdTesting", "TestProcesses"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ", swiftLog], swiftSettings: swiftSettings),
        .testTarget(
            name: "FlowFuzzTests",
            dependencies: ["FlowDaemon", "FlowWire", "FlowCore", "ZeroMQ", "TestFlows", "WireSamples", swiftLog],
            // Optimized even in debug builds: its generators and checks would otherwise take most of the run.
            swiftSettings: swiftSettings + [.unsafeFlags(["-O"])]
        ),
        .testTarget(
            name: "MovieDemoTests",
            dependencies: [
                "MovieDemo", "MovieVocabulary", "MovieServices", "ExampleSupport", "FlowDaemon", "FlowWire", "FlowCore",
                "FlowdTesting", "FlowFile", swiftLog,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MovieServicesTests", dependencies: ["MovieServices", "MovieVocabulary", "FlowCore"],
            swiftSettings: swiftSettings
        ),
        // The terminal presenter under tmux, with flowd and the services as processes; its renderer and key decoder.
        .testTarget(
            name: "MoviePresenterTUITests",
            dependencies: ["movie-presenter", "MovieVocabulary", "FlowCore", "FlowdTesting", "TestProcesses"],
            swiftSettings: swiftSettings
        ),
        // Spawns the built executables (movie-flowd, flowctl, the services, movie-presenter): build every product
        // first.
        .testTarget(
            name: "FlowdIntegrationTests",
            dependencies: ["FlowCore", "FlowWire", "ZeroMQ", "FlowdTesting", "TestFlows", "TestProcesses"],
            swiftSettings: swiftSettings
        ),
    ]
)
