import CZMQRelay
import FlowWire

/// The `c-relay` child: `Benchmarks/CZMQRelay`'s loop, given the frames and sizes the Swift relay uses.
func runCRelay(control: String, commandExtra: Int, okBytes: Int, loseStep: Int) throws {
    var okBody = Array("{\"req\":0,\"result\":{\"accepted\":true}}".utf8)
    if okBody.count < okBytes { okBody.append(contentsOf: [UInt8](repeating: 0x20, count: okBytes - okBody.count)) }
    let status = control.withCString { endpoint in
        MessageType.command.rawValue.withCString { command in
            MessageType.ok.rawValue.withCString { ok in
                MessageType.welcome.rawValue.withCString { welcome in
                    okBody.withUnsafeBufferPointer { body in
                        var options = czmq_relay_options(
                            endpoint: endpoint, command_type: command, ok_type: ok, welcome_type: welcome,
                            ok_body: body.baseAddress, ok_body_length: body.count, command_extra: max(0, commandExtra),
                            lose_step: loseStep
                        )
                        return czmq_relay_run(&options)
                    }
                }
            }
        }
    }
    if status != 0 { throw BenchError("the C relay failed") }
}
