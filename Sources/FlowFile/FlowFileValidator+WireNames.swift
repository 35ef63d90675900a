internal import FlowWire

extension FlowFileValidator {
    /// Names and screen IDs the wire protocol carries (docs/PROTOCOL.md §2.1): a step, stepper kind or action named
    /// otherwise could never be sent by a stepper, served or acted on (`invalidName`), nor a screen shown.
    func checkWireNames() {
        let pattern = "1 to 128 bytes of A-Z a-z 0-9 . _ : - (docs/PROTOCOL.md §2.1)"
        func check(_ name: Name, _ what: String, valid: Bool) {
            guard !valid else { return }
            sink.report(
                .invalidName, at: name.location, "the \(what) '\(name)' is not a name the protocol carries",
                fix: "write \(pattern)")
        }
        for step in app.steps { check(step.name, "step name", valid: WireProtocol.isValidStepName(step.name.value)) }
        for kind in app.stepperKinds {
            check(kind.kind, "stepper kind", valid: WireProtocol.isValidKind(kind.kind.value))
        }
        for type in app.screenTypes {
            for action in type.actions {
                check(action.name, "action name", valid: WireProtocol.isValidStepName(action.name.value))
            }
        }
        for flow in app.flows {
            for screen in [flow.root] + flow.screens where screen.id.isLiteral {
                guard !WireProtocol.isValidPresentableID(screen.id.source) else { continue }
                sink.report(
                    .invalidName, at: screen.id.location, "the screen id '\(screen.id)' is not 1 to 256 bytes",
                    fix: "write an id of 1 to 256 bytes (docs/PROTOCOL.md §2.1)")
            }
        }
    }
}
