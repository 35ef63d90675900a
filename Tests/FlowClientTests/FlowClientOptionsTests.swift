import ArgumentParser
import FlowClient
import FlowWire
import Testing
import ZeroMQ

/// ``FlowClientOptions``: the command-line options every client process shares, and the configuration they give.
struct FlowClientOptionsTests {
    @Test func theEndpointsComeFromTheRuntimeFolderAndTheFlagsOverrideThem() throws {
        let options = try FlowClientOptions.parse(["--runtime-dir", "/tmp/app", "--events", "tcp://flowd:5561"])
        #expect(options.endpoints == FlowdEndpoints(control: "ipc:///tmp/app/control.sock", events: "tcp://flowd:5561"))

        let control = try FlowClientOptions.parse(["--control", "tcp://flowd:5560"])
        #expect(control.endpoints.control == "tcp://flowd:5560")
        #expect(control.endpoints.events == FlowdEndpoints.default().events)
    }

    @Test func theConfigurationTakesTheHeartbeatAndTheLevelDefaultsToTheCallers() throws {
        let options = try FlowClientOptions.parse(["--heartbeat-ms", "250", "--log-level", "DEBUG"])
        let configuration = try options.clientConfiguration(logger: testLogger, requestTimeout: .seconds(2))
        #expect(configuration.heartbeatInterval == .milliseconds(250))
        #expect(configuration.requestTimeout == .seconds(2))
        #expect(configuration.curve == nil)
        #expect(options.level(default: .error) == .debug)

        let defaults = try FlowClientOptions.parse([])
        #expect(try defaults.clientConfiguration(logger: testLogger).heartbeatInterval == .seconds(1))
        #expect(defaults.level(default: .error) == .error)
        #expect(defaults.level() == .info)
    }

    /// The ZMTP TTL a client asks of the daemon covers the liveness window of its own heartbeat: a client announcing
    /// 60 s is not cut off by the daemon's libzmq after 3 s of silence (the default, kept for shorter heartbeats).
    @Test func theZMTPHeartbeatTTLIsNoShorterThanTheClientsLivenessWindow() throws {
        let long = try FlowClientOptions.parse(["--heartbeat-ms", "60000"]).clientConfiguration(logger: testLogger)
        #expect(long.connectionSocketOptions.heartbeat?.ttl == .seconds(180))
        #expect(long.connectionSocketOptions.heartbeat?.interval == .seconds(1))
        #expect(long.connectionSocketOptions.heartbeat?.timeout == .seconds(3))
        for milliseconds in ["200", "1000"] {
            let short = try FlowClientOptions.parse(["--heartbeat-ms", milliseconds])
                .clientConfiguration(logger: testLogger)
            #expect(short.connectionSocketOptions.heartbeat?.ttl == .seconds(3), "\(milliseconds) ms")
        }
        var off = FlowClientConfiguration(heartbeatInterval: .seconds(60))
        off.socketOptions.heartbeat = nil
        #expect(off.connectionSocketOptions.heartbeat == nil)
    }

    @Test func badValuesAreRefusedWhenParsing() throws {
        for arguments in [
            ["--heartbeat-ms", "50"], ["--heartbeat-ms", "60001"], ["--log-level", "loud"],
            ["--server-key", "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try FlowClientOptions.parse(arguments) }
        }
        // The same words as flowd's own flag; a name in any case is read.
        #expect(
            #expect(throws: (any Error).self) { try FlowClientOptions.parse(["--log-level", "loud"]) }
                .map(FlowClientOptions.message(for:))
                == "--log-level must be one of trace, debug, info, notice, warning, error, critical")
        #expect(try FlowClientOptions.parse(["--log-level", "DEBUG"]).level() == .debug)
    }
}
