@testable import FlowDaemon
import FlowWire
import Foundation
import Testing

/// An existing runtime folder is used as it is; one that others may enter is reported, one another user owns refuses
/// the start (docs/SECURITY.md §3).
@Suite(.timeLimit(.minutes(1)))
struct RuntimeDirectoryTests {
    @Test func aFolderOthersMayEnterIsReportedAndAPrivateOrGroupOneIsNot() throws {
        let folder = NSTemporaryDirectory() + "flowd-runtime-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Flowd.prepareRuntimeDirectory(folder + "/made")
        #expect(SocketFolderCheck(folder: folder + "/made") == .fine)
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/made")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(chmod(folder + "/made", 0o750) == 0)
        #expect(SocketFolderCheck(folder: folder + "/made") == .fine)
        #expect(chmod(folder + "/made", 0o755) == 0)
        try Flowd.prepareRuntimeDirectory(folder + "/made")
        #expect(SocketFolderCheck(folder: folder + "/made") == .exposed(reason: "mode 755 lets others in"))
        #expect(SocketFolderCheck(folder: folder + "/missing") == .fine)
    }

    /// A folder that cannot be made stops the start naming it and the settings that choose it.
    @Test func aFolderThatCannotBeMadeIsNamed() throws {
        let error = #expect(throws: RuntimeFolderError.self) { try Flowd.prepareRuntimeDirectory("/dev/null/flowd") }
        #expect(error?.path == "/dev/null/flowd")
        #expect(error?.description.hasPrefix("cannot create the runtime folder /dev/null/flowd (") == true)
        #expect(error?.description.contains("--runtime-dir, FLOWD_RUNTIME_DIR or runtime_dir") == true)
    }

    /// Giving a folder away takes root; CI's tests run as root.
    @Test(.enabled(if: geteuid() == 0, "chown to another user takes root"))
    func aFolderAnotherUserOwnsRefusesTheStartAndRootsDoesNot() throws {
        let folder = NSTemporaryDirectory() + "flowd-runtime-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Flowd.prepareRuntimeDirectory(folder)
        #expect(chown(folder, 65534, 65534) == 0)
        #expect(SocketFolderCheck(folder: folder) == .foreignOwner(uid: 65534))
        #expect(chown(folder, 0, 0) == 0)
        #expect(SocketFolderCheck(folder: folder) == .fine)
    }
}
