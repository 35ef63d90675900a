internal import LibC
internal import FlowWire
internal import Logging
import SystemPackage

// swift-system has no flock, fsync/fdatasync, mkdir, rename, unlink or readdir: those stay POSIX calls here.

/// The directory a ``JournalStore`` keeps its files in, held by an exclusive `flock(2)` on its `lock` file while open.
///
/// The `lock` file is never deleted: deleting a lock file races with the next locker.
final class StateDirectory {
    let path: String
    private var directory: FileDescriptor?
    private var lock: FileDescriptor?

    /// Creates the directory (mode 0700) when missing, opens it and takes its lock.
    ///
    /// - Throws: ``JournalError`` `.locked` when another process holds it, `.io` when it cannot be created or opened.
    init(path: String) throws(JournalError) {
        self.path = path
        try Self.makeDirectory(path)
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(FilePath(path), .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw .io("cannot open the state directory \(path)", error)
        }
        let lockPath = path + "/lock"
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(
                FilePath(lockPath), .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
        } catch {
            try? directory.close()
            throw .io("cannot open \(lockPath)", error)
        }
        guard retryingOnInterrupt({ flock(lock.rawValue, LOCK_EX | LOCK_NB) }) == 0 else {
            let code = errno
            let holder = lock.readPrefix(32).flatMap {
                Int(String(decoding: $0.filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
            }
            try? lock.close()
            try? directory.close()
            if code == EWOULDBLOCK || code == EAGAIN {
                let by = holder.map { "another flowd (pid \($0))" } ?? "another flowd"
                throw JournalError(.locked, "the state directory \(path) is in use by \(by); one directory per flowd")
            }
            throw .io("cannot lock \(lockPath)", Errno(rawValue: code))
        }
        // The holder's pid, for the message above; the lock, not this content, is what excludes.
        if (try? lock.resize(to: 0)) != nil {
            _ = try? lock.writeAll(toAbsoluteOffset: 0, Array("\(getpid())\n".utf8))
        }
        self.directory = directory
        self.lock = lock
    }

    deinit { close() }

    var isOpen: Bool { lock != nil }

    func filePath(_ name: String) -> String { "\(path)/\(name)" }

    /// The names in the directory.
    func list() throws(JournalError) -> Set<String> { try Self.names(in: path) }

    /// The names in the directory at `path` (``AppVersionStore``'s folder too).
    static func names(in path: String) throws(JournalError) -> Set<String> {
        guard let stream = opendir(path) else { throw .io("cannot list \(path)", Errno(rawValue: errno)) }
        defer { closedir(stream) }
        var names: Set<String> = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            names.insert(name)
        }
        return names
    }

    /// `fsync`s the directory, which makes creations, renames and deletions in it durable.
    func sync() throws(JournalError) {
        guard let directory, retryingOnInterrupt({ fsync(directory.rawValue) }) == 0 else {
            throw .io("cannot sync the directory \(path)", Errno(rawValue: errno))
        }
    }

    func move(_ name: String, to newName: String) throws(JournalError) {
        guard rename(filePath(name), filePath(newName)) == 0 else {
            throw .io("cannot rename \(filePath(name)) to \(filePath(newName))", Errno(rawValue: errno))
        }
    }

    /// Deletes `name`; a failure other than its absence is logged.
    func remove(_ name: String, logger: Logger) {
        if unlink(filePath(name)) != 0 && errno != ENOENT {
            logger.warning(
                "journal: cannot delete a file",
                metadata: ["file": "\(filePath(name))", "error": "\(Errno(rawValue: errno).text)"])
        }
    }

    /// A duplicate of the directory's descriptor (for its `fsync`s on another thread), which the caller closes.
    func duplicateDescriptor() throws -> FileDescriptor {
        guard let directory else { throw Errno.badFileDescriptor }
        return try directory.duplicate()
    }

    /// Closes the directory and releases the lock. Idempotent.
    func close() {
        try? directory?.close()
        directory = nil
        if let lock {
            // Unlocked first: a child another thread is spawning holds a copy of the descriptor until its exec, and
            // the flock (on the open file description) would outlive this close until then.
            _ = retryingOnInterrupt { flock(lock.rawValue, LOCK_UN) }
            try? lock.close()
        }
        lock = nil
    }

    /// `mkdir -p`: missing parents with mode 0755, the directory itself with 0700; syncs the parent of what it made.
    private static func makeDirectory(_ path: String) throws(JournalError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw JournalError(.io, "the state directory \(path) exists and is not a directory")
            }
            return
        }
        let parent = PathParts.folder(of: path)
        if parent != path && stat(parent, &status) != 0 {
            var prefix = parent.hasPrefix("/") ? "" : "."
            for component in parent.split(separator: "/") {
                prefix += "/" + component
                if stat(prefix, &status) == 0 { continue }
                guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                    throw .io("cannot create \(prefix)", Errno(rawValue: errno))
                }
            }
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw .io("cannot create the state directory \(path)", Errno(rawValue: errno))
        }
        if let parentDirectory = try? FileDescriptor.open(FilePath(parent), .readOnly, options: [.directory, .closeOnExec]) {
            _ = fsync(parentDirectory.rawValue)
            try? parentDirectory.close()
        }
    }
}

@available(*, unavailable, message: "owned by the journal store's thread")
extension StateDirectory: Sendable {}

// MARK: - File helpers

extension FileDescriptor {
    /// Opens (or with `.create`, creates with mode 0600) the file at `path`, close-on-exec.
    static func open(
        journalFile path: String, _ mode: AccessMode, options: OpenOptions = []
    ) throws(JournalError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(
                FilePath(path), mode, options: options.union(.closeOnExec), permissions: [.ownerReadWrite])
        } catch {
            throw .io(options.contains(.create) ? "cannot create \(path)" : "cannot open \(path)", error)
        }
    }

    /// The whole file, read from offset 0 (what is there if it shrinks meanwhile).
    func readAll(path: String) throws(JournalError) -> [UInt8] {
        try read(from: 0, upTo: nil, path: path)
    }

    /// The bytes from `start` to the end of the file, or to `start + limit`: fewer if the file is shorter (or
    /// shrinks meanwhile), none if it ends before `start`. Read into an array of that size, nothing copied after.
    func read(from start: Int, upTo limit: Int?, path: String) throws(JournalError) -> [UInt8] {
        let fileSize: Int
        do {
            fileSize = Int(try stat().size)
        } catch {
            throw .io("cannot stat \(path)", error)
        }
        let size = max(0, min(fileSize - start, limit ?? .max))
        var failure: (any Error)?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var done = 0
            while done < size {
                do {
                    let count = try read(
                        fromAbsoluteOffset: Int64(start + done),
                        into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[done...])))
                    if count == 0 { break }
                    done += count
                } catch {
                    failure = error
                    break
                }
            }
            initialized = done
        }
        if let failure { throw .io("cannot read \(path)", failure) }
        return bytes
    }

    /// Up to `count` bytes from offset 0, `nil` when there are none or they cannot be read.
    func readPrefix(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { try? self.read(fromAbsoluteOffset: 0, into: $0) } ?? 0
        return read > 0 ? Array(bytes[0..<read]) : nil
    }

    func write(_ bytes: [UInt8], at offset: Int, path: String) throws(JournalError) {
        do {
            try writeAll(toAbsoluteOffset: Int64(offset), bytes)
        } catch {
            throw .io("cannot write \(path)", error)
        }
    }

    func truncate(to size: Int, path: String) throws(JournalError) {
        do {
            try resize(to: Int64(size))
        } catch {
            throw .io("cannot truncate \(path) to \(size) bytes", error)
        }
    }

    /// `fdatasync` (`fsync` on Darwin, which has no `fdatasync`): the data, and the metadata needed to read it back.
    func syncData(path: String) throws(JournalError) {
        #if canImport(Darwin)
        let result = retryingOnInterrupt { fsync(rawValue) }
        #else
        let result = retryingOnInterrupt { fdatasync(rawValue) }
        #endif
        guard result == 0 else { throw .io("cannot sync \(path)", Errno(rawValue: errno)) }
    }

    /// `fsync`: data and all metadata.
    func syncAll(path: String) throws(JournalError) {
        guard retryingOnInterrupt({ fsync(rawValue) }) == 0 else {
            throw .io("cannot sync \(path)", Errno(rawValue: errno))
        }
    }
}

extension JournalError {
    /// An `.io` error: `what` followed by the system's error text.
    static func io(_ what: String, _ error: any Error) -> JournalError {
        JournalError(.io, "\(what): \((error as? Errno)?.text ?? "\(error)")")
    }
}

extension Errno {
    /// `No space left on device (errno 28)`.
    var text: String { "\(description) (errno \(rawValue))" }
}

private func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
