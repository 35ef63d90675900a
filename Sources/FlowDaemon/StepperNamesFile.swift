#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Logging

/// The `stepper-names` file of a state directory: the names of the stepper processes connected, by the kinds they
/// serve, that the next start waits for before it offers the restored attachments of a kind (``RestartGrace``). Beside
/// the journal, not in it: a record kind older flowds do not read would make the journal unreadable to them, and
/// names are a hint, not state (a lost or stale file costs one grace at most).
///
/// `{"kinds": {"login.app": ["login-a", "login-b"]}}`.
struct StepperNamesFile {
    static let name = "stepper-names"

    let path: String
    let logger: Logger

    init(stateDirectory: String, logger: Logger) {
        path = "\(stateDirectory)/\(Self.name)"
        self.logger = logger
    }

    private struct Contents: Codable {
        var kinds: [String: [String]]
    }

    /// The names the last run kept; none when there is no file (a fresh state, an older flowd's) or it cannot be
    /// read (logged: nothing is held back then, as without one).
    func read() -> [String: [String]] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(Contents.self, from: data).kinds
        } catch {
            logger.warning(
                "stepper names of the last run cannot be read; restored attachments are offered at once",
                metadata: ["file": "\(path)", "error": "\(error)"])
            return [:]
        }
    }

    /// Replaces the file with `kinds` (written aside and renamed over it: a crash leaves the old file or the new).
    /// Not synced: a file lost with a power cut costs one grace, not state. A failure is logged, not thrown.
    func write(_ kinds: [String: [String]]) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(Contents(kinds: kinds)).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            logger.warning("stepper names cannot be saved", metadata: ["file": "\(path)", "error": "\(error)"])
        }
    }
}
