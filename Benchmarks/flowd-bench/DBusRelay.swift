import Foundation

/// The optional D-Bus baseline (`Benchmarks/dbus-relay/dbus-relay.c`): built with `cc` against libsystemd's sd-bus
/// when its headers and `dbus-daemon` are installed, skipped otherwise. It is one C program with three modes (relay,
/// stepper, presenter) that speaks the orchestrator's line protocol and side channel, so it runs like the others.
enum DBusRelay {
    /// The C source, found next to this benchmark's sources (the benchmark runs from its checkout).
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("dbus-relay/dbus-relay.c").path

    /// `dbus-daemon`'s path, if installed.
    static func daemonPath() -> String? {
        for directory in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(
            atPath: directory + "/dbus-daemon"
        ) {
            return directory + "/dbus-daemon"
        }
        return nil
    }

    /// Builds the program into `folder`; the path, or why it cannot run here.
    static func build(in folder: String) -> Result<String, BenchError> {
        guard daemonPath() != nil else { return .failure(BenchError("dbus-daemon is not installed (apt: dbus-daemon)")) }
        guard FileManager.default.fileExists(atPath: source) else {
            return .failure(BenchError("its source \(source) is not here"))
        }
        guard let flags = runShell("pkg-config --cflags --libs libsystemd libzmq"), !flags.isEmpty else {
            return .failure(BenchError("libsystemd's headers are not installed (apt: libsystemd-dev)"))
        }
        let output = folder + "/dbus-relay"
        guard runShell("cc -O2 -std=c11 -Wall -o '\(output)' '\(source)' \(flags) >&2 && echo built", quiet: false) == "built"
        else {
            return .failure(BenchError("cc could not build \(source)"))
        }
        return .success(output)
    }

    /// The private bus's configuration: a session-type bus listening on `socket`, everything allowed.
    static func configuration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }
}

/// Runs `command` with `/bin/sh`; its standard output without the trailing newline, `nil` when it failed. `quiet`:
/// its standard error is dropped.
func runShell(_ command: String, quiet: Bool = true) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    if quiet { process.standardError = FileHandle.nullDevice }
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
