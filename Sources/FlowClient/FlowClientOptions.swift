public import ArgumentParser
public import FlowWire
public import Logging

/// The command-line options of a client process (a stepper service, a presenter, `flowctl`): where the daemon is,
/// the heartbeat, the log level and CURVE. Pull them into a command with `@OptionGroup var connection:
/// FlowClientOptions`; ``clientConfiguration(logger:requestTimeout:)`` makes the ``FlowClientConfiguration``.
///
/// Every option may be left out: the endpoints are then the runtime folder's (`$FLOWD_RUNTIME_DIR`, as the daemon
/// finds it), and the keys come from `$FLOWD_KEY_FILE` and `$FLOWD_SERVER_KEY` when set.
public struct FlowClientOptions: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "The daemon's control endpoint (default: ipc://<runtime dir>/control.sock).", valueName: "endpoint"
        )
    )
    public var control: String?

    @Option(
        help: ArgumentHelp(
            "The daemon's events endpoint (default: ipc://<runtime dir>/events.sock).", valueName: "endpoint"
        )
    )
    public var events: String?

    @Option(
        name: .customLong("runtime-dir"),
        help: ArgumentHelp(
            "The folder of the daemon's default ipc:// endpoints (default: as the daemon finds it).", valueName: "path"
        )
    )
    public var runtimeDirectory: String?

    @Option(
        name: .customLong("heartbeat-ms"),
        help: "Heartbeat interval towards the daemon, in milliseconds (100...60000; default 1000)."
    )
    public var heartbeatMs: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    public var logLevel: String?

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "This process's CURVE secret key file, for a daemon running with keys (default: $FLOWD_KEY_FILE).",
            valueName: "path"
        )
    )
    public var keyFile: String?

    @Option(
        name: .customLong("server-key"),
        help: ArgumentHelp(
            "The daemon's CURVE public key: Z85 text or a file holding it (default: $FLOWD_SERVER_KEY).",
            valueName: "key"
        )
    )
    public var serverKey: String?

    public init() {}

    public func validate() throws {
        do {
            _ = try curve()
        } catch {
            throw ValidationError(error.message)
        }
        if let heartbeatMs, !(100...60_000).contains(heartbeatMs) {
            throw ValidationError("--heartbeat-ms must be 100...60000")
        }
        if let logLevel, Logger.Level(named: logLevel) == nil {
            throw ValidationError("--log-level must be one of \(Logger.Level.allNames)")
        }
    }

    /// The level `--log-level` names, else `defaultLevel`.
    public func level(default defaultLevel: Logger.Level = .info) -> Logger.Level {
        logLevel.flatMap(Logger.Level.init(named:)) ?? defaultLevel
    }

    /// Sends the process's logs to standard error at ``level(default:)``: the whole logging setup of a client
    /// process's `main` (swift-log's bootstrap, once per process).
    public func bootstrapStandardErrorLogging(default defaultLevel: Logger.Level = .info) {
        let level = level(default: defaultLevel)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The daemon's endpoints: `--control` and `--events` over the runtime folder's defaults.
    public var endpoints: FlowdEndpoints {
        var endpoints = runtimeDirectory.map(FlowdEndpoints.init(runtimeDirectory:)) ?? FlowdEndpoints.default()
        if let control { endpoints.control = control }
        if let events { endpoints.events = events }
        return endpoints
    }

    /// CURVE towards the daemon from `--key-file`/`--server-key` or the environment; `nil` for plaintext.
    ///
    /// - Throws: ``FlowClientError`` when a key cannot be read or only one side of the pair is given.
    public func curve() throws(FlowClientError) -> FlowClientCurve? {
        try FlowClientCurve.resolve(keyFile: keyFile, serverKey: serverKey)
    }

    /// The client configuration these options give; the other settings keep their defaults.
    ///
    /// - Throws: ``FlowClientError`` as ``curve()`` does (``validate()`` has checked it already in a parsed command).
    public func clientConfiguration(
        logger: Logger, requestTimeout: Duration? = FlowClientConfiguration().requestTimeout
    ) throws(FlowClientError) -> FlowClientConfiguration {
        FlowClientConfiguration(
            endpoints: endpoints, heartbeatInterval: .milliseconds(heartbeatMs ?? 1000),
            requestTimeout: requestTimeout, curve: try curve(), logger: logger
        )
    }
}
