#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Logging

/// The names of the stepper processes that said `HELLO` in this run, by the kinds they serve: what the next start
/// waits for before it offers the restored attachments of a kind (``RestartGrace``). Kept in the state directory
/// beside the journal, as `stepper-names`, not in it: a record kind older flowds do not read would make the journal
/// unreadable to them, and names are a hint, not state (a lost or stale file costs one grace at most).
struct StepperNames {
    /// The most names kept for one kind: processes that come and go under new names (a test's, a script's) do not
    /// grow the file without end; past it, a kind's new names are not kept (its grace then ends by time).
    static let perKind = 64

    private(set) var byKind: [String: Set<String>] = [:]
    /// Counts the changes, so that the transport saves the file when it moved, without comparing the names.
    private(set) var version = 0

    /// A process named `name` said `HELLO` serving `kinds`.
    mutating func joined(_ name: String, serving kinds: [String]) {
        for kind in kinds where byKind[kind, default: []].count < Self.perKind {
            if byKind[kind, default: []].insert(name).inserted { version += 1 }
        }
    }

    /// What is kept changed otherwise (the grace ended, dropping the names that did not come back).
    mutating func changed() { version += 1 }
}

/// The `stepper-names` file of a state directory: `{"kinds": {"login.app": ["login-a", "login-b"]}}`.
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
