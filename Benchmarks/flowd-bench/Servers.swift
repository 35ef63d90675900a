import FlowDaemon
import Foundation

// The server side of one run: flowd, one of the relays, or the D-Bus broker with its relay.
extension Orchestrator {
    /// The processes of a run's server side (the first is the one whose memory is reported) and the endpoint its
    /// clients connect to.
    struct Servers {
        var children: [Child]
        var control: String
    }

    func startServers(
        variant: Variant, endpoint: (String) -> String,
        sizes: (commandExtra: Int, okBytes: Int, stepBytes: Int, commandBytes: Int), folder: String, number: Int,
        stateDirectory: inout String?
    ) throws -> Servers {
        let relayArguments = ["--command-extra", "\(sizes.commandExtra)", "--ok-bytes", "\(sizes.okBytes)"]
        switch variant.system {
        case .flowd:
            var arguments = [
                "daemon", "--control", endpoint("control"), "--events", endpoint("events"),
                "--ui-screens", "\(settings.uiScreens)",
                "--max-sessions", "\(max(DaemonConfiguration().maxSessions, variant.idleSessions + 16))",
            ]
            if let policy = variant.journal, let journal = settings.journal {
                let directory = try makeStateDirectory(parent: journal.parent)
                if !journal.keep { Leftovers.shared.hold(path: directory) }
                stateDirectory = directory
                arguments += [
                    "--state-dir", directory, "--fsync", policy, "--fsync-interval-ms", "\(journal.intervalMilliseconds)",
                    "--compact-bytes", "\(journal.compactBytes)",
                ]
            }
            return try ready(try Child("flowd", arguments: arguments, prefix: settings.daemonPrefix))
        case .raw:
            return try ready(try Child("relay", arguments: ["relay", "--control", endpoint("control")] + relayArguments))
        case .cZMQ:
            return try ready(
                try Child(
                    "c-relay",
                    arguments: ["c-relay", "--control", endpoint("control"), "--lose-step", "\(settings.loseStep)"]
                        + relayArguments
                )
            )
        case .dbus:
            guard let program = dbusProgram, let daemon = DBusRelay.daemonPath() else {
                throw BenchError("the D-Bus relay is not built")
            }
            let configuration = folder + "/bus-\(number).conf"
            try DBusRelay.configuration(socket: folder + "/bus-\(number)")
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            let broker = try Child(
                "dbus-daemon", executable: daemon,
                arguments: ["--config-file=\(configuration)", "--nofork", "--print-address=1"],
                // As root it says it cannot raise its file limit; nothing else comes there in a run.
                quiet: true
            )
            let address: String
            let relay: Child
            do {
                // The broker's first line is its address (`unix:path=…,guid=…`).
                address = "unix:" + (try broker.expect("unix:", timeout: 60))
                relay = try Child(
                    "dbus-relay", executable: program, arguments: ["relay", "--control", address] + relayArguments
                )
            } catch {
                broker.finish(grace: 0)
                throw error
            }
            // The relay first, so that its memory is the one reported; the broker's CPU is counted with it.
            let servers = Servers(children: [relay, broker], control: address)
            do {
                _ = try relay.expect("READY", timeout: 60)
            } catch {
                for child in servers.children { child.finish(grace: 0) }
                throw error
            }
            return servers
        }
    }

    /// Waits for a single server's `READY <endpoint>`; ends it when that does not come.
    private func ready(_ server: Child) throws -> Servers {
        do {
            return Servers(children: [server], control: try server.expect("READY ", timeout: 60))
        } catch {
            server.finish(grace: 0)
            throw error
        }
    }
}
