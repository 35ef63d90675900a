/// The runtime folder (the default `ipc://` endpoints' folder) could not be made: flowd does not start.
package struct RuntimeFolderError: Error, CustomStringConvertible, Sendable, Hashable {
    package let path: String
    package let reason: String

    package var description: String {
        "cannot create the runtime folder \(path) (\(reason)): give --runtime-dir, FLOWD_RUNTIME_DIR or runtime_dir a "
            + "folder this user may create (config/README.md)"
    }
}
