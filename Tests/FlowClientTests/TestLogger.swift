import Foundation
import Logging

/// A logger that drops everything (tests never bootstrap the logging system).
let testLogger: Logger = {
    guard ProcessInfo.processInfo.environment["FLOWD_CLIENT_TEST_LOG"] != nil else {
        return Logger(label: "flowclient-tests", factory: { _ in SwiftLogNoOpLogHandler() })
    }
    var logger = Logger(label: "flowclient-tests", factory: { StreamLogHandler.standardError(label: $0) })
    logger.logLevel = .debug
    return logger
}()
