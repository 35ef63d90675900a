import FlowFile
import Testing

/// YAML anchors and aliases in a flow file: an alias is the anchored value again (Yams resolves it), and a mistake in
/// it is reported where the anchored value is written.
struct YAMLAliasTests {
    @Test func anAliasIsTheAnchoredValue() {
        let aliased = base(replacing: "  start: {}", with: "  start: &nothing {}")
            .replacingOccurrences(of: "  close: {}", with: "  close: *nothing")
        #expect(diagnostics(aliased) == [])
    }

    @Test func aMistakeInAnAliasIsReportedAtTheAnchor() {
        let anchored = base(
            replacing: "stepper: {actions: {about: {step: open, payload: {id: 1}}}}",
            with: "stepper: &buttons {actions: {about: {step: open, payload: {id: 1}}}}")
        let reused = anchored.replacingOccurrences(
            of: "          - alert: hello",
            with: "          - alert: hello\n        contribute:\n          - {screen: hello, stepper: *buttons}")
        #expect(
            diagnostics(reused) == [
                "32:42: the screen 'hello' has no declared type, so it accepts no action 'about'; give it a 'type:' declared under 'screenTypes:' with 'about' under its 'actions:'"
            ])
    }
}
