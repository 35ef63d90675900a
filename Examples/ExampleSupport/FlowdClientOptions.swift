public import ArgumentParser
public import FlowClient
import FlowWire
public import Logging

/// The command-line options every example client process shares (the services and the presenter): where flowd is,
/// the heartbeat, the log level and CURVE. Pull them in with `@OptionGroup var connection: FlowdClientOptions`.
public struct FlowdClientOptions: ParsableArguments, Sendable {
    @Option(help: "flowd's control endpoint (default: ipc://<runtime dir>/control.sock).")
    public var control: String?

    @Option(name: .customLong("heartbeat-ms"), help: "Heartbeat interval towards flowd, in milliseconds (100...60000).")
    public var heartbeatMs = 1000

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    public var logLevel = "info"

    @Option(
        name: .customLong("key-file"),
        help: "This process's CURVE secret key file, for a flowd running with keys (default: $FLOWD_KEY_FILE)."
    )
    public var keyFile: String?

    @Option(
        name: .customLong("server-key"),
        help: "flowd's CURVE public key: Z85 text or a file holding it (default: $FLOWD_SERVER_KEY)."
    )
    public var serverKey: String?

    public init() {}

    public func validate() throws {
        do {
            _ = try FlowClientCurve.resolve(keyFile: keyFile, serverKey: serverKey)
        } catch {
            throw ValidationError(error.message)
        }
        guard (100...60_000).contains(heartbeatMs) else { throw ValidationError("--heartbeat-ms must be 100...60000") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    /// The level `--log-level` names.
    public var level: Logger.Level { Logger.Level(rawValue: logLevel.lowercased()) ?? .info }

    /// Logs go to standard error at ``level``.
    public func bootstrapStandardErrorLogging() {
        let level = self.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The daemon's endpoints: the runtime directory's defaults, `--control` over them.
    public var endpoints: FlowdEndpoints {
        var endpoints = FlowdEndpoints.default()
        if let control { endpoints.control = control }
        return endpoints
    }

    /// CURVE towards flowd from --key-file/--server-key or the environment; `nil` for plaintext.
    public func clientCurve() throws -> FlowClientCurve? {
        try FlowClientCurve.resolve(keyFile: keyFile, serverKey: serverKey)
    }

    /// The client configuration these options give.
    public func clientConfiguration(logger: Logger) throws -> FlowClientConfiguration {
        FlowClientConfiguration(
            endpoints: endpoints, heartbeatInterval: .milliseconds(heartbeatMs), curve: try clientCurve(), logger: logger
        )
    }
}
