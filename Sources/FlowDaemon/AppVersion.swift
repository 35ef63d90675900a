import Foundation  // not FoundationEssentials alone: a read error's localizedDescription, as `flowctl check` words it
internal import Crypto
package import FlowCore

/// One version of an application read from a file (the stock flowd's flow file): the application, its file's bytes
/// and their content id. A session keeps the version it was created with for its whole life; the daemon keeps the
/// bytes of every version a live session uses in its state directory (docs/RELIABILITY.md, "Application versions").
///
/// `Sendable`: the application is (``FlowApplication``), the rest are values.
package struct AppVersion: Sendable {
    /// The content id: the first 12 hex digits of the SHA-256 of ``text`` (``id(of:)``).
    package let id: String
    package let application: any FlowApplication
    /// The file's bytes as read.
    package let text: [UInt8]

    /// The version of `application` read from `text`.
    package init(application: any FlowApplication, text: [UInt8]) {
        self.id = Self.id(of: text)
        self.application = application
        self.text = text
    }

    /// The content id of a file's bytes: the same bytes always give the same id, other bytes (all but certainly) not.
    package static func id(of text: [UInt8]) -> String {
        SHA256.hash(data: text).prefix(6).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// Why a file does not give an application: its problems, each on one line (`file:line:column: error: …` for a flow
/// file).
package struct AppVersionError: Error, Sendable, CustomStringConvertible {
    package var problems: [String]

    package init(_ problems: [String]) { self.problems = problems }

    package var description: String { problems.joined(separator: "\n") }
}

/// Where a daemon's application comes from when it is a file: read at start, again on SIGHUP (new sessions get the
/// new version), and from the bytes the state directory kept for a recovered session's version.
///
/// `Sendable`: a path and a function.
package struct AppVersionSource: Sendable {
    /// The file's path.
    package let path: String
    /// Makes the application of a file's text; `file` names it in the problems it reports, `version` is the
    /// text's content id (a flow file's flows name it in their saved state).
    package let make: @Sendable (_ text: String, _ file: String, _ version: String) throws(AppVersionError) ->
        any FlowApplication

    package init(
        path: String,
        make: @escaping @Sendable (_ text: String, _ file: String, _ version: String) throws(AppVersionError) ->
            any FlowApplication
    ) {
        self.path = path
        self.make = make
    }

    /// Reads the file and checks it.
    ///
    /// - Throws: ``AppVersionError`` when it cannot be read or does not give an application.
    package func read() throws(AppVersionError) -> AppVersion {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let problem = "\(path):1:1: error: cannot read the file: \(error.localizedDescription)"
            throw AppVersionError([problem + "; give the path of a readable UTF-8 file"])
        }
        return try version(of: Array(data), file: path)
    }

    /// The version `text` is; `file` names it in problems.
    ///
    /// - Throws: ``AppVersionError`` when it is not UTF-8 or does not give an application.
    package func version(of text: [UInt8], file: String) throws(AppVersionError) -> AppVersion {
        guard let string = String(validating: text, as: UTF8.self) else {
            throw AppVersionError(
                ["\(file):1:1: error: the file is not UTF-8 text; give the path of a readable UTF-8 file"])
        }
        return AppVersion(application: try make(string, file, AppVersion.id(of: text)), text: text)
    }
}
