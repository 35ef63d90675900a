// flowd-demo: plays the RxFlow demo app's journeys in one process (MovieDemo's flows and steppers, a
// FlowCoordinatorStateMachine deciding, a PresentationModel standing for UIKit) and prints:
// 1. the did-navigate log, one line per navigation, as RxFlowDemo's AppDelegate prints it;
// 2. the screens at the end (`*` visible, `-` not);
// 3. the flow tree at the end.
//
// Usage: flowd-demo [--transcript]
//   --transcript  also prints every coordinator action and every report fed back to the coordinator.
// Logs go to standard error; LOG_LEVEL (trace, debug, info, notice, warning, error, critical) sets the level.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import MovieDemo
import MovieVocabulary

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: flowd-demo [--transcript]")
    exit(0)
}
let printsTranscript = arguments.contains("--transcript")

let level = getenv("LOG_LEVEL").flatMap { Logger.Level(rawValue: String(cString: $0).lowercased()) } ?? .notice
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = level
    return handler
}
let logger = Logger(label: "flowd.demo")

do {
    let journey = try MovieDemoJourney.wholeJourney(logger: logger)
    if printsTranscript {
        print("== transcript ==")
        for line in journey.transcript { print(line) }
        print()
    }
    print("== did navigate (\(journey.didNavigateLog.count) navigations) ==")
    for line in journey.didNavigateLog { print(line) }
    print()
    print("== screens ==")
    print(journey.screens, terminator: "")
    print()
    print("== flow tree ==")
    print(journey.snapshot().description, terminator: "")
    logger.info(
        "journey complete",
        metadata: [
            "navigations": "\(journey.didNavigateLog.count)", "drops": "\(journey.drops.count)",
            "rejectedCommands": "\(journey.rejectedCommands.count)",
        ]
    )
} catch {
    logger.error("journey failed", metadata: ["error": "\(error)"])
    exit(1)
}
