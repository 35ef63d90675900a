public import Foundation

/// The folder where `swift build` put the package's executables, for tests that start them as processes: next to
/// the running test binary (`.build/debug`, or above a macOS test bundle), or `FLOWD_BIN_DIR` if set.
public enum BuiltExecutables: Sendable {
    /// The first candidate folder that holds every one of `names` as an executable file.
    ///
    /// - Throws: ``ExecutablesNotFound`` naming the folders it looked in.
    public static func folder(containing names: [String]) throws(ExecutablesNotFound) -> URL {
        let candidates = candidateFolders()
        for candidate in candidates
        where names.allSatisfy({ FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent($0).path) }) {
            return candidate
        }
        throw ExecutablesNotFound(names: names, searched: candidates.map(\.path))
    }

    /// `FLOWD_BIN_DIR`, the test binary's folder and up to three folders above it, the main bundle's folder.
    public static func candidateFolders() -> [URL] {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["FLOWD_BIN_DIR"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
            // On macOS the test binary sits inside a bundle: …/debug/x.xctest/Contents/MacOS/x.
            candidates.append(url)
            for _ in 0..<3 {
                url = url.deletingLastPathComponent()
                candidates.append(url)
            }
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        return candidates
    }
}

/// The executables a test needs were not built (or not where ``BuiltExecutables`` looks).
public struct ExecutablesNotFound: Error, Sendable, CustomStringConvertible {
    /// The executables asked for.
    public let names: [String]
    /// The folders looked in.
    public let searched: [String]

    public var description: String {
        "the executables \(names) were not found next to the test binary (looked in \(searched)): build every"
            + " product first (`swift build --build-tests` before `swift test --skip-build`)"
    }
}
