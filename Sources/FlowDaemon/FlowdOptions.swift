public import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import FlowWire
internal import FlowCore
internal import Logging
import ZeroMQ

/// The command-line options of a Flowd daemon, to pull into an application's own `@main` command with
/// `@OptionGroup var options: FlowdOptions`.
///
/// Precedence: flags, then the config file (`--config`), then the built-in defaults (which need no file at all).
public struct FlowdOptions: ParsableArguments, Sendable {
    @Option(name: .long, help: "A JSON config file (see config/flowd.json).")
    package var config: String?

    @Option(name: .long, help: "The control endpoint (ROUTER), e.g. tcp://0.0.0.0:5560.")
    package var control: String?

    @Option(name: .long, help: "The events endpoint (PUB), e.g. tcp://0.0.0.0:5561.")
    package var events: String?

    @Option(name: .customLong("runtime-dir"), help: "The folder of the default ipc:// endpoints.")
    package var runtimeDirectory: String?

    @Option(
        name: .customLong("heartbeat-ms"),
        help: "Heartbeat interval towards clients, in milliseconds (100...60000; 1000 by default)."
    )
    package var heartbeatMs: Int?

    @Option(name: .customLong("max-sessions"), help: "The most sessions held at once (at least 1; 10000 by default).")
    package var maxSessions: Int?

    @Option(
        name: .customLong("max-body-bytes"),
        help: "The largest message body accepted (at least 1024; 262144 by default)."
    )
    package var maxBodyBytes: Int?

    @Option(
        name: .customLong("outbox-limit"),
        help: "Commands kept per session for a presenter's replay (at least 1; 1024 by default)."
    )
    package var outboxLimit: Int?

    @Option(
        name: .customLong("outbox-bytes-limit"),
        help: ArgumentHelp(
            "Bytes of commands kept per session for a presenter's replay, as docs/LIMITS.md counts them; the last one "
                + "is kept whatever its size (at least 1024; 1048576 by default).")
    )
    package var outboxBytesLimit: Int?

    @Option(
        name: .customLong("max-session-ui-bytes"),
        help: ArgumentHelp(
            "Bytes of screens a session's UI may hold, as docs/LIMITS.md counts them, before its steps are refused "
                + "(sessionFull) until it shrinks (at least 1024; 67108864 by default).")
    )
    package var maxSessionUIBytes: Int?

    @Option(
        name: .customLong("idle-session-timeout-s"),
        help: "End a session after this many seconds without a presenter and without a change (0: never; the default)."
    )
    package var idleSessionTimeoutS: Int?

    @Option(
        name: .customLong("hibernate-after-s"),
        help: ArgumentHelp(
            "Keep a session without a presenter and without a change for this many seconds as its saved state only, "
                + "made again on its next use (0: never; 60 by default).")
    )
    package var hibernateAfterS: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    package var logLevel: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve Prometheus metrics over HTTP (GET /metrics) at host:port, e.g. 127.0.0.1:9464 (none by default; "
                + "off: none even if the config file names one).",
            valueName: "host:port"
        )
    )
    package var metrics: String?

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "The daemon's CURVE secret key file (`flowctl keygen`); turns CURVE on for every endpoint "
                + "(docs/SECURITY.md).",
            valueName: "path"
        )
    )
    package var keyFile: String?

    @Option(
        name: .customLong("clients-file"),
        help: ArgumentHelp(
            "A JSON array of the client keys allowed in, with their roles (docs/SECURITY.md).", valueName: "path"
        )
    )
    package var clientsFile: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where the journal of the daemon's state lives (default: $FLOWD_STATE_DIR, else <runtime dir>/state); "
                + "a restarted flowd rebuilds every session from it (docs/RELIABILITY.md).",
            valueName: "path"
        )
    )
    package var stateDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "When the journal is synced to disk before flowd answers: always, interval (at most every 100 ms, the "
                + "default) or never (left to the OS). Any policy survives a crash of flowd; only always survives a "
                + "power loss with nothing lost.",
            valueName: "policy"
        )
    )
    package var fsync: String?

    @Option(
        name: .customLong("journal-damage"),
        help: ArgumentHelp(
            "What to do when the journal is damaged before its tail: refuse (the default: flowd does not start and "
                + "names the file and offset) or truncate (start from the records before the damage, keeping the "
                + "journal aside, with a new daemon ID; docs/RELIABILITY.md).",
            valueName: "refuse|truncate"
        )
    )
    package var journalDamage: String?

    @Flag(name: .customLong("no-journal"), help: "Keep the state in memory only: a restart starts from nothing.")
    package var noJournal = false

    @Flag(
        name: .customLong("allow-plaintext-tcp"),
        help: "Allow tcp:// endpoints without CURVE (no authentication, no encryption)."
    )
    package var allowPlaintextTCP = false

    public init() {}

    public func validate() throws {
        // The flags' own fields over the defaults: a field out of bounds here is a flag's.
        var fromFlags = DaemonConfiguration()
        applyDaemonFlags(to: &fromFlags)
        if let bad = fromFlags.outOfBounds() { throw ValidationError("\(bad.flag) must be \(bad.allowed)") }
        if let logLevel, Logger.Level(named: logLevel) == nil {
            throw ValidationError("--log-level must be one of \(Logger.Level.allNames)")
        }
        if let metrics, metrics != "off", MetricsEndpoint.parseAddress(metrics) == nil {
            throw ValidationError("--metrics must be host:port (e.g. 127.0.0.1:9464) or off")
        }
        if let fsync, FsyncPolicy(fsync) == nil { throw ValidationError("--fsync must be always, interval or never") }
        if let journalDamage, JournalDamagePolicy(rawValue: journalDamage) == nil {
            throw ValidationError("--journal-damage must be refuse or truncate")
        }
        if noJournal, stateDirectory != nil {
            throw ValidationError("--no-journal and --state-dir contradict each other")
        }
        for (flag, endpoint) in [("--control", control), ("--events", events)] {
            if let endpoint, !Self.isServable(endpoint) {
                throw ValidationError("\(flag) must be an ipc:// or tcp:// endpoint, not '\(endpoint)'")
            }
        }
    }

    /// Whether a client process can connect to `endpoint`: `ipc://` or `tcp://` (libzmq takes `inproc://` too, which
    /// only this process could reach).
    static func isServable(_ endpoint: String) -> Bool {
        endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("tcp://")
    }

    /// The settings these options give, reading the config file if one is named.
    ///
    /// - Throws: ``FlowdConfigError`` when the file cannot be read or parsed; ``FlowdSecurityError`` when a `tcp://`
    ///   endpoint would run without CURVE (and plaintext is not allowed) or the CURVE settings cannot be used.
    public func settings(environment: [String: String] = FlowdEndpoints.currentEnvironment()) throws -> FlowdSettings {
        let file = try Self.readConfigFile(config)
        let runtimeDirectory =
            runtimeDirectory ?? file.runtimeDirectory ?? FlowdEndpoints.defaultRuntimeDirectory(environment: environment)
        let defaults = FlowdEndpoints(runtimeDirectory: runtimeDirectory)
        var daemon = file.daemon ?? DaemonConfiguration()
        applyDaemonFlags(to: &daemon)
        let path = config ?? "-"
        if let bad = daemon.outOfBounds() ?? file.sockets?.outOfBounds() ?? file.journal?.outOfBounds() {
            throw FlowdConfigError(path: path, reason: "sets \(bad.field) to \(bad.value): it must be \(bad.allowed)")
        }
        guard WireProtocol.isValidName(daemon.defaultSession) else {
            throw FlowdConfigError(
                path: path,
                reason: "sets daemon.default_session to '\(daemon.defaultSession)': it must be [A-Za-z0-9._-]{1,64}")
        }
        if logLevel == nil, let name = file.logLevel, Logger.Level(named: name) == nil {
            throw FlowdConfigError(
                path: path, reason: "sets log_level to '\(name)': it must be one of \(Logger.Level.allNames)")
        }
        var sockets = ZMQSocketOptions()
        if let linger = file.sockets?.lingerMs { sockets.linger = .milliseconds(linger) }
        if let limit = file.sockets?.maxMessageBytes { sockets.maxMessageSize = limit }
        if let zmtp = file.sockets?.zmtpHeartbeatMs {
            sockets.heartbeat = zmtp == 0 ? nil : .init(interval: .milliseconds(zmtp), timeout: .milliseconds(3 * zmtp), ttl: .milliseconds(3 * zmtp))
        }
        if let mark = file.sockets?.sendHighWaterMark { sockets.sendHighWaterMark = mark }
        if let mark = file.sockets?.receiveHighWaterMark { sockets.receiveHighWaterMark = mark }
        let controlEndpoint = control ?? file.control ?? defaults.control
        let eventsEndpoint = events ?? file.events ?? defaults.events
        // The flags are checked as they are parsed: an endpoint that cannot be served here is the file's.
        for (field, endpoint) in [("control", controlEndpoint), ("events", eventsEndpoint)]
        where !Self.isServable(endpoint) {
            throw FlowdConfigError(
                path: path, reason: "sets \(field) to '\(endpoint)': it must be an ipc:// or tcp:// endpoint")
        }
        let security = try FlowdSecuritySettings.resolve(
            file.security, configPath: config, keyFile: keyFile, clientsFile: clientsFile,
            allowPlaintextTCP: allowPlaintextTCP, endpoints: [controlEndpoint, eventsEndpoint]
        )
        let journal = try journalConfiguration(file.journal, runtimeDirectory: runtimeDirectory, environment: environment)
        let metricsAddress = metrics ?? file.metrics
        if let metricsAddress, metricsAddress != "off", MetricsEndpoint.parseAddress(metricsAddress) == nil {
            throw FlowdConfigError(path: config ?? "--metrics", reason: "names a metrics address that is not host:port")
        }
        // SIGHUP reads the allow-list again from where it came from: the config file's `security` section and the
        // clients file (`--clients-file` still wins). The secret key and everything else stay as started.
        var reloadAccessPolicy: (@Sendable () throws -> AccessPolicy)?
        if security != nil {
            let (config, clientsFile) = (config, clientsFile)
            reloadAccessPolicy = { @Sendable () throws -> AccessPolicy in
                let section = try Self.readConfigFile(config).security
                return try FlowdSecuritySettings.accessPolicy(section, configPath: config, clientsFile: clientsFile)
            }
        }
        var settings = FlowdSettings(
            runtimeDirectory: runtimeDirectory,
            server: DaemonServer.Configuration(
                controlEndpoint: controlEndpoint,
                eventsEndpoint: eventsEndpoint,
                daemon: daemon,
                socketOptions: sockets,
                security: security,
                journal: journal
            ),
            logLevel: (logLevel ?? file.logLevel).flatMap(Logger.Level.init(named:)) ?? .info,
            metricsAddress: metricsAddress == "off" ? nil : metricsAddress,
            reloadAccessPolicy: reloadAccessPolicy
        )
        if let config, let data = FileManager.default.contents(atPath: config) {
            settings.unknownConfigFields = FlowdConfigFile.unknownFields(in: data)
        }
        return settings
    }

    /// The config file at `path`, or the empty one when no file is named.
    static func readConfigFile(_ path: String?) throws(FlowdConfigError) -> FlowdConfigFile {
        guard let path else { return FlowdConfigFile() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FlowdConfigError(path: path, reason: "cannot be read")
        }
        do {
            return try JSONDecoder().decode(FlowdConfigFile.self, from: data)
        } catch {
            throw FlowdConfigError(
                path: path, reason: "is not a valid config: \(JSONDecodingProblem.describe(error, in: Array(data)))")
        }
    }
}

extension FlowdOptions {
    /// The `daemon` fields the flags set, over `daemon`.
    fileprivate func applyDaemonFlags(to daemon: inout DaemonConfiguration) {
        if let heartbeatMs { daemon.heartbeatMs = heartbeatMs }
        if let maxSessions { daemon.maxSessions = maxSessions }
        if let maxBodyBytes { daemon.maxBodyBytes = maxBodyBytes }
        if let outboxLimit { daemon.outboxLimit = outboxLimit }
        if let outboxBytesLimit { daemon.outboxBytesLimit = outboxBytesLimit }
        if let maxSessionUIBytes { daemon.maxSessionUIBytes = maxSessionUIBytes }
        if let idleSessionTimeoutS { daemon.idleSessionTimeoutS = idleSessionTimeoutS }
        if let hibernateAfterS { daemon.hibernateAfterS = hibernateAfterS }
    }

    /// The journal's settings: flags, then the file, then `$FLOWD_STATE_DIR`, then `<runtime dir>/state`.
    fileprivate func journalConfiguration(
        _ file: FlowdConfigFile.Journal?, runtimeDirectory: String, environment: [String: String]
    ) throws -> JournalConfiguration? {
        if noJournal || (stateDirectory == nil && file?.enabled == false) { return nil }
        let directory =
            stateDirectory ?? file?.directory ?? environment["FLOWD_STATE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? runtimeDirectory + "/state"
        var journal = JournalConfiguration(directory: directory)
        // Both numbers were held to their bounds with the other fields (SettingBounds.swift).
        let interval = file?.fsyncIntervalMs ?? 100
        if let name = fsync ?? file?.fsync {
            guard let policy = FsyncPolicy(name, intervalMilliseconds: interval) else {
                throw FlowdConfigError(
                    path: config ?? "--fsync", reason: "names an fsync policy other than always, interval, never"
                )
            }
            journal.fsync = policy
        } else {
            journal.fsync = .interval(milliseconds: interval)
        }
        if let compactBytes = file?.compactBytes { journal.compactBytes = compactBytes }
        if let name = journalDamage ?? file?.damage {
            guard let policy = JournalDamagePolicy(rawValue: name) else {
                throw FlowdConfigError(path: config ?? "--journal-damage", reason: "has journal.damage other than refuse, truncate")
            }
            journal.damage = policy
        }
        return journal
    }
}

/// A config file that could not be used.
package struct FlowdConfigError: Error, CustomStringConvertible, Sendable {
    package let path: String
    package let reason: String
    package var description: String { "config file \(path) \(reason)" }
}

/// The config file's shape (JSON); every field may be left out.
///
/// ```json
/// {"app": "/usr/local/share/flowd/movies.flows.yaml", "control": "tcp://0.0.0.0:5560", "events": "tcp://0.0.0.0:5561", "log_level": "info", "metrics": "127.0.0.1:9464",
///  "daemon": {"heartbeat_ms": 1000, "max_sessions": 10000, "max_body_bytes": 262144, "outbox_limit": 1024,
///             "outbox_bytes_limit": 1048576, "max_session_ui_bytes": 67108864, "idle_session_timeout_s": 0,
///             "hibernate_after_s": 60},
///  "journal": {"directory": "/var/lib/flowd", "fsync": "interval", "fsync_interval_ms": 100, "compact_bytes": 8388608,
///              "damage": "refuse"},
///  "sockets": {"linger_ms": 100, "max_message_bytes": 1048576, "zmtp_heartbeat_ms": 1000}}
/// ```
package struct FlowdConfigFile: Codable, Sendable, Hashable {
    /// Socket settings.
    package struct Sockets: Codable, Sendable, Hashable {
        package var lingerMs: Int64?
        package var maxMessageBytes: Int64?
        package var zmtpHeartbeatMs: Int64?
        /// `ZMQ_SNDHWM`: messages queued per peer; beyond, the daemon drops what it sends them (docs/LIMITS.md).
        package var sendHighWaterMark: Int32?
        /// `ZMQ_RCVHWM`: messages taken in per peer before libzmq stops reading that peer's connection.
        package var receiveHighWaterMark: Int32?

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case lingerMs = "linger_ms"
            case maxMessageBytes = "max_message_bytes"
            case zmtpHeartbeatMs = "zmtp_heartbeat_ms"
            case sendHighWaterMark = "send_high_water_mark"
            case receiveHighWaterMark = "receive_high_water_mark"
        }
    }

    /// The journal (docs/RELIABILITY.md); every field may be left out. `"enabled": false` keeps the state in memory.
    package struct Journal: Codable, Sendable, Hashable {
        package var enabled: Bool?
        package var directory: String?
        package var fsync: String?
        package var fsyncIntervalMs: Int?
        package var compactBytes: Int?
        /// `refuse` or `truncate` (``JournalDamagePolicy``).
        package var damage: String?

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case enabled, directory, fsync, damage
            case fsyncIntervalMs = "fsync_interval_ms"
            case compactBytes = "compact_bytes"
        }
    }

    /// The flow file the stock `flowd` runs (``FlowdAppLocation``); other daemons ignore it.
    package var app: String?
    package var control: String?
    package var events: String?
    package var runtimeDirectory: String?
    /// Where and how the state is journaled.
    package var journal: Journal?
    package var logLevel: String?
    /// Where to serve Prometheus metrics (`host:port`); none when left out.
    package var metrics: String?
    package var daemon: DaemonConfiguration?
    package var sockets: Sockets?
    /// CURVE and the allowed client keys (``Security``).
    package var security: Security?

    package init() {}

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case app, control, events, daemon, sockets, metrics, security, journal
        case runtimeDirectory = "runtime_dir"
        case logLevel = "log_level"
    }
}
