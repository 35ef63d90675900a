#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import LibC
internal import Logging
import SystemPackage

/// The `stepper-names` file of a state directory: the names of the stepper processes connected, by the kinds they
/// serve, that the next start waits for before it offers the restored attachments of a kind (``RestartGrace``). Beside
/// the journal, not in it: a record kind older flowds do not read would make the journal unreadable to them, and
/// names are a hint, not state (a lost or stale file costs one grace at most).
///
/// `{"kinds": {"login.app": ["login-a", "login-b"]}}`.
struct StepperNamesFile {
    static let name = "stepper-names"
    /// A larger file is not read (logged; nothing held back): 2000 processes serving 9 kinds each under 64-byte names
    /// write some 1.2 MB, and a 34 MB file once took 6.5 s of a start.
    static let maxBytes = 16 << 20

    let path: String
    /// Where a write goes before it is renamed over ``path``: one name, so a write a crash cut short is replaced by
    /// the next one rather than left beside it (Foundation's atomic write names each attempt anew).
    var temporaryPath: String { path + ".tmp" }
    let logger: Logger
    /// Writes that failed since the start: the 1st, 10th, 100th… are logged (a full disk fails each join's write).
    private(set) var failures = 0
    /// What the file holds after the next write: changed name by name, never built from every name again.
    private var contents = EncodedStepperNames()

    init(stateDirectory: String, logger: Logger) {
        path = "\(stateDirectory)/\(Self.name)"
        self.logger = logger
    }

    private struct Contents: Decodable {
        var kinds: [String: [String]]
    }

    /// The names the last run kept; none when there is no file (a fresh state, an older flowd's) or it cannot be
    /// read (logged: nothing is held back then, as without one).
    func read() -> [String: [String]] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int,
                size > Self.maxBytes
            {
                logger.warning(
                    "stepper names of the last run are too many to read; restored attachments are offered at once",
                    metadata: ["file": "\(path)", "bytes": "\(size)", "max_bytes": "\(Self.maxBytes)"])
                return [:]
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(Contents.self, from: data).kinds
        } catch {
            logger.warning(
                "stepper names of the last run cannot be read; restored attachments are offered at once",
                metadata: ["file": "\(path)", "error": "\(error)"])
            return [:]
        }
    }

    /// Replaces the file with exactly `kinds` (the daemon writes its changes instead, below).
    mutating func write(_ kinds: [String: [String]]) {
        contents = EncodedStepperNames(kinds)
        save()
    }

    /// Applies what the names kept gained and lost since the last write, and replaces the file with them.
    mutating func write(_ changes: [KeptStepperNames.Change]) {
        contents.apply(changes)
        save()
    }

    /// Replaces the file with ``contents``, written aside to ``temporaryPath`` (``FileReplacement``). Not synced: a
    /// file lost with a power cut costs one grace, not state. A failure is logged (``RepeatedWarning``), not thrown.
    private mutating func save() {
        do {
            try FileReplacement.replace(path, with: contents.bytes(), writingAside: temporaryPath, synced: false)
        } catch {
            failures += 1
            guard RepeatedWarning.isLogged(failures) else { return }
            logger.warning(
                "stepper names cannot be saved",
                metadata: ["file": "\(path)", "error": "\(error)", "failures": "\(failures)"])
        }
    }
}
