import FlowFile
import Foundation
import Testing

/// One mistake each, in a small valid file (`baseFile`): the exact diagnostics, with their line and column.
struct BadFlowFileTests {
    @Test func theBaseFileIsValid() {
        #expect(diagnostics(baseFile) == [])
    }

    @Test func syntax() {
        let found = diagnostics(base(replacing: "app: hello", with: "app: [hello"))
        #expect(
            found == [
                "3:5: YAML syntax: did not find expected ',' or ']'; correct the YAML (or JSON) syntax here"
            ])
    }

    @Test func duplicateKey() {
        let found = diagnostics(base(replacing: "  close: {}\n  greet", with: "  close: {}\n  close: {}\n  greet"))
        #expect(
            found == [
                "10:3: the key 'close' is written twice in one mapping (first at 9:3); keep one of them (a mapping's keys are unique)"
            ])
    }

    @Test func duplicateKeyWithCRLFLineBreaks() {
        let crlf = base(replacing: "  close: {}\n  greet", with: "  close: {}\n  close: {}\n  greet")
            .replacingOccurrences(of: "\n", with: "\r\n")
        #expect(
            diagnostics(crlf) == [
                "10:3: the key 'close' is written twice in one mapping (first at 9:3); keep one of them (a mapping's keys are unique)"
            ])
    }

    @Test func duplicateKeyInJSON() {
        let found = diagnostics("{\n  \"flowfile\": 1,\n  \"app\": \"x\",\n  \"flowfile\": 1\n}\n", file: "bad.json")
        #expect(found == [
            "4:3: the key 'flowfile' is written twice in one mapping (first at 2:3); keep one of them (a mapping's keys are unique)"
        ])
    }

    @Test func unknownKey() {
        let found = diagnostics(
            base(
                replacing: "        contribute:\n          - screen: home",
                with: "        contribut:\n          - screen: home"))
        #expect(
            found == [
                "30:9: unknown key 'contribut' in the handler of 'start'; write 'contribute'"
            ])
    }

    @Test func keyOfAnotherCommand() {
        let found = diagnostics(
            base(replacing: "          - push: detail", with: "          - push: detail\n            in: root"))
        #expect(found == ["36:13: unknown key 'in' in a 'push' command; write 'onto', or leave it out"])
        let dismiss = diagnostics(
            base(replacing: "          - dismiss: root", with: "          - dismiss: root\n            over: root"))
        #expect(
            dismiss == ["48:13: unknown key 'over' in a 'dismiss' command; leave it out ('dismiss' takes no other key)"])
    }

    @Test func unknownKeyInAPayloadField() {
        let found = diagnostics(
            base(replacing: "payload: {fields: {id: int}}", with: "payload: {fields: {id: {typ: int}}}"))
        #expect(found == ["7:29: unknown key 'typ' in the field 'id'; write 'type'"])
    }

    @Test func wrongType() {
        let found = diagnostics(base(replacing: "root: main", with: "root: [main]"))
        #expect(
            found == [
                "3:7: 'root' is a mapping, not a list; write it as a mapping of 'flow', 'stepper', 'allowStepWhenDismissed'"
            ])
    }

    /// Names and texts are strings, as the schema says: a plain number, boolean or empty value is not read as one.
    @Test func numberBooleanOrNothingWhereAStringIsWritten() {
        #expect(
            diagnostics(base(replacing: "app: hello", with: "app: 2024")) == [
                "2:6: 'app' is a string, not the number 2024; write it in quotes: \"2024\""
            ])
        #expect(
            diagnostics(base(replacing: "{id: main.home, type: Home}", with: "{id: main.home, type: true}")) == [
                "23:35: 'type' of the screen 'home' of 'main' is a string, not the boolean true; write it in quotes: \"true\""
            ])
        #expect(
            diagnostics(base(replacing: "Detail: {data: \"<int>\"}", with: "Detail: {data: ~}")) == [
                "17:18: 'data' of the screen type 'Detail' is left empty; write a value here, or leave it out"
            ])
        #expect(
            diagnostics(base(replacing: "stepper: {one: close}", with: "stepper: {one: }")) == [
                "50:20: a step is left empty; write a value here, or leave it out"
            ])
    }

    @Test func missingKey() {
        let found = diagnostics(base(replacing: "    root: {id: modal.stack, kind: stack}\n", with: ""))
        #expect(
            found == [
                "49:5: the flow 'modal' has no 'root'; add 'root: {id: <screen id>, kind: stack}'"
            ])
    }

    @Test func unsupportedVersion() {
        let found = diagnostics(base(replacing: "flowfile: 1", with: "flowfile: 2"))
        #expect(
            found == [
                "1:11: flow file format '2' is not one this flowd reads; write 'flowfile: 1'"
            ])
        #expect(diagnostics(base(replacing: "flowfile: 1", with: "flowfile: 1.0")) == [])
        #expect(
            diagnostics(base(replacing: "flowfile: 1", with: "flowfile: 1.1")) == [
                "1:11: flow file format '1.1' is not one this flowd reads; write 'flowfile: 1'"
            ])
    }

    @Test func wrongKind() {
        let found = diagnostics(
            base(replacing: "{id: modal.stack, kind: stack}", with: "{id: modal.stack, kind: stak}"))
        #expect(
            found == [
                "49:35: 'stak' is not a screen kind; write 'stack'"
            ])
    }

    @Test func invalidName() {
        let found = diagnostics(base(replacing: "  start: {}", with: "  start: {}\n  \"no good\": {}"))
        #expect(
            found == [
                "6:3: the step name 'no good' is not a name the protocol carries; write 1 to 128 bytes of A-Z a-z 0-9 . _ : - (docs/PROTOCOL.md §2.1)",
                "6:3: no flow handles the step 'no good'; add 'no good:' under 'navigate:' of the flow that should handle it, or remove the step",
            ])
        let emptyID = diagnostics(base(replacing: "{id: main.home, type: Home}", with: "{id: \"\", type: Home}"))
        #expect(emptyID == ["23:19: the screen id '' is not 1 to 256 bytes; write an id of 1 to 256 bytes (docs/PROTOCOL.md §2.1)"])
    }

    @Test func unknownStepInHandler() {
        let found = diagnostics(
            base(replacing: "      greet:\n        commands", with: "      greeet:\n        commands"))
        #expect(
            found == [
                "10:3: no flow handles the step 'greet'; add 'greet:' under 'navigate:' of the flow that should handle it, or remove the step",
                "21:14: the flow 'main' has no handler for 'greet', which its stepper may emit; add 'greet:' under 'navigate:' of 'main' (an empty handler does nothing)",
                "42:7: unknown step 'greeet'; write 'greet', or declare 'greeet' under 'steps:'",
            ])
    }

    @Test func unknownStepInStepper() {
        let found = diagnostics(base(replacing: "{one: close}", with: "{one: clos}"))
        #expect(
            found == [
                "50:20: unknown step 'clos'; write 'close', or declare 'clos' under 'steps:'"
            ])
    }

    @Test func unknownFlow() {
        let found = diagnostics(base(replacing: "          - flow: modal", with: "          - flow: modl"))
        #expect(
            found == [
                "37:19: unknown flow 'modl'; write 'modal', or declare 'modl' under 'flows:'",
                "48:3: the flow 'modal' is never started; start it from a reachable flow ('contribute: - flow: modal') or remove it",
            ])
    }

    @Test func unknownScreen() {
        let found = diagnostics(base(replacing: "          - push: detail", with: "          - push: detial"))
        #expect(
            found == [
                "35:19: unknown screen 'detial' in the flow 'main'; write 'detail', or declare 'detial' under the flow's 'screens:'"
            ])
    }

    @Test func unknownStepperKind() {
        let found = diagnostics(
            base(replacing: "{remote: greeter, initial: start}", with: "{remote: greeters, initial: start}"))
        #expect(
            found == [
                "21:23: unknown stepper kind 'greeters'; write 'greeter', or declare 'greeters' under 'stepperKinds:'"
            ])
    }

    @Test func unknownStepperKindInAdapt() {
        let found = diagnostics(
            base(replacing: Self.mainStepper, with: Self.mainStepper + Self.adapt("{kind: greeters, steps: [open]}")))
        #expect(
            found == [
                "22:19: unknown stepper kind 'greeters' in 'adapt'; write 'greeter', or declare 'greeters' under 'stepperKinds:'"
            ])
    }

    @Test func unknownStepInAdapt() {
        let found = diagnostics(
            base(replacing: Self.mainStepper, with: Self.mainStepper + Self.adapt("{kind: greeter, steps: [opne]}")))
        #expect(
            found == [
                "22:36: unknown step 'opne'; write 'open', or declare 'opne' under 'steps:'"
            ])
    }

    @Test func adaptWithoutSteps() {
        let found = diagnostics(
            base(replacing: Self.mainStepper, with: Self.mainStepper + Self.adapt("{kind: greeter, step: open}")))
        #expect(
            found == [
                "22:12: 'adapt' of 'main' has no 'steps'; add 'steps: [<step>, …]'",
                "22:28: unknown key 'step' in 'adapt' of 'main'; write 'steps'",
            ])
    }

    static let mainStepper = "    stepper: {remote: greeter, initial: start}\n"

    /// The main flow's `adapt`, on the line after its stepper (line 22).
    static func adapt(_ value: String) -> String { "    adapt: \(value)\n" }

    @Test func unknownScreenType() {
        let found = diagnostics(base(replacing: "type: Detail,", with: "type: Detial,"))
        #expect(
            found == [
                "24:54: unknown screen type 'Detial'; write 'Detail', or declare 'Detial' under 'screenTypes:'"
            ])
    }

    @Test func unknownAction() {
        let found = diagnostics(base(replacing: "{actions: {about: ", with: "{actions: {abuot: "))
        #expect(
            found == [
                "32:33: the screen type 'Home' accepts no action 'abuot'; write 'about', or declare 'abuot' under 'actions:' of the screen type 'Home'"
            ])
    }

    @Test func stepNoFlowHandles() {
        let found = diagnostics(base(replacing: "  close: {}\n", with: "  close: {}\n  wave: {}\n"))
        #expect(
            found == [
                "10:3: no flow handles the step 'wave'; add 'wave:' under 'navigate:' of the flow that should handle it, or remove the step"
            ])
    }

    @Test func actionOnAScreenWithoutAType() {
        let found = diagnostics(base(replacing: "home: {id: main.home, type: Home}", with: "home: {id: main.home}"))
        #expect(
            found == [
                "32:33: the screen 'home' has no declared type, so it accepts no action 'about'; give it a 'type:' declared under 'screenTypes:' with 'about' under its 'actions:'"
            ])
    }

    @Test func stepAParentDoesNotHandle() {
        let found = diagnostics(
            base(replacing: "  close: {}\n", with: "  close: {}\n  done: {}\n").replacingOccurrences(
                of: "        end: close", with: "        end: done\n      done: {}"))
        #expect(
            found == [
                "54:14: the flow 'main' has no handler for 'done', which its child 'modal' hands it (end); add 'done:' under 'navigate:' of 'main' (an empty handler does nothing)"
            ])
    }

    @Test func unreachableFlow() {
        let found = diagnostics(
            base(
                replacing: "deepLinks:",
                with:
                    "  orphan:\n    root: {id: orphan.stack, kind: stack}\n    stepper: {one: close}\n    navigate:\n      close: {}\ndeepLinks:"
            ))
        #expect(
            found == [
                "54:3: the flow 'orphan' is never started; start it from a reachable flow ('contribute: - flow: orphan') or remove it"
            ])
    }

    @Test func duplicateScreenID() {
        let found = diagnostics(base(replacing: "{id: main.hello, kind: alert", with: "{id: main.home, kind: alert"))
        #expect(
            found == [
                "25:19: the screen id 'main.home' of the screen 'hello' of the flow 'main' is already the id of the screen 'home' of the flow 'main' (23:18); give each screen its own id (a screen written in two flows has the same kind, type and data in both); a screen whose data changes is declared once, with a template: data: \"{payload}\""
            ])
    }

    @Test func collidingScreenIDs() {
        let found = diagnostics(
            base(
                replacing: "      hello: {id",
                with: "      special: {id: main.detail.new, type: Detail}\n      hello: {id"))
        #expect(
            found == [
                "25:21: the screen id 'main.detail.new' of the screen 'special' of the flow 'main' can be the same as 'main.detail.{payload.id}' of the screen 'detail' of the flow 'main' (24:21); make the ids differ in their fixed text (a prefix of their own, say)"
            ])
    }

    @Test func badTemplate() {
        let found = diagnostics(base(replacing: "data: \"{payload.id}\"", with: "data: \"{payload.id\""))
        #expect(
            found == [
                "24:69: template '{payload.id': a '{' is not closed; write a reference as {payload} or {payload.field}, a literal brace as {{ or }}"
            ])
    }

    @Test func unknownPayloadField() {
        let found = diagnostics(
            base(replacing: "\"main.detail.{payload.id}\"", with: "\"main.detail.{payload.ident}\""))
        #expect(
            found == [
                "24:33: '{payload.ident}' names the field 'ident', which the payload of the step 'open' ({id: int}) does not declare; write one of {payload.id}, or declare the field"
            ])
    }

    @Test func noPayload() {
        let found = diagnostics(
            base(replacing: "          - setStack: [home]", with: "          - setStack: [home, detail]"))
        #expect(
            found == [
                "24:33: '{payload.id}' names the payload of the step 'start', which carries none; declare a payload for the step under 'steps:', or leave the reference out",
                "24:69: '{payload.id}' names the payload of the step 'start', which carries none; declare a payload for the step under 'steps:', or leave the reference out",
            ])
    }

    @Test func payloadMismatch() {
        let found = diagnostics(base(replacing: "payload: {id: 1}}", with: "payload: {id: one}}"))
        #expect(
            found == [
                "32:40: the step 'open' carries {id: int}, and this payload is {id: string}; give a payload of type {id: int}"
            ])
    }

    @Test func actionPayloadToAStepWithoutOne() {
        let found = diagnostics(
            base(replacing: "      about: {}", with: "      about: {payload: int}")
                .replacingOccurrences(of: "{about: {step: open, payload: {id: 1}}}", with: "{about: close}"))
        #expect(
            found == [
                "32:40: the step 'close' carries no payload, and the action hands it its payload (int); declare a payload for the step under 'steps:', or map the action to a step that carries one"
            ])
    }

    /// `payload: null` is no payload: the wire's null, what a step without one carries.
    @Test func nullPayload() {
        #expect(diagnostics(base(replacing: "stepper: {one: close}", with: "stepper: {one: {step: close, payload: null}}")) == [])
        #expect(
            diagnostics(base(replacing: "stepper: {one: close}", with: "stepper: {one: {step: close, payload: 1}}")) == [
                "50:20: the step 'close' carries no payload, and one is given here; write 'close' alone, or declare a payload for it under 'steps:'"
            ])
        #expect(
            diagnostics(base(replacing: "{step: open, payload: {id: 1}}", with: "{step: open, payload: null}")) == [
                "32:40: the step 'open' carries {id: int}, and this payload is none; give a payload of type {id: int}"
            ])
    }

    @Test func missingPayload() {
        let found = diagnostics(base(replacing: "{step: open, payload: {id: 1}}", with: "open"))
        #expect(
            found == [
                "32:40: the step 'open' carries a payload ({id: int}), and none is given here; write '{step: open, payload: <{id: int}>}'"
            ])
    }

    @Test func screenWithoutStepper() {
        let found = diagnostics(
            base(replacing: "            stepper: {actions: {about: {step: open, payload: {id: 1}}}}\n", with: ""))
        #expect(
            found == [
                "31:13: the contributor of 'home' has no stepper; add 'stepper: {remote: <kind>}', '{one: <step>}' or '{actions: {<action>: <step>}}'"
            ])
    }

    @Test func flowWithoutStepper() {
        let found = diagnostics(base(replacing: "    stepper: {one: close}\n", with: ""))
        #expect(
            found == [
                "37:13: the flow 'modal' is started without a stepper; add 'stepper:' here, or give the flow 'modal' a 'stepper:' of its own"
            ])
    }

    @Test func endWithContributors() {
        let found = diagnostics(
            base(
                replacing: "        end: close",
                with: "        end: close\n        contribute:\n          - forwardToCurrentFlow: start"))
        #expect(
            found == [
                "53:9: the handler of 'close' both ends its flow and has contributors; keep 'end' (the flow ends: .end(forwardToParentFlowWithStep:)) or 'contribute', not both"
            ])
    }

    @Test func noParentFlow() {
        let found = diagnostics(
            base(replacing: "        commands:\n          - dismiss: root", with: "        end: close"))
        #expect(
            found == [
                "46:14: the root flow 'main' has no parent to hand 'close' to (end); handle the step in 'main' itself (a forward or end on the root flow is dropped, D10)"
            ])
    }

    @Test func tabIndexOutOfRange() {
        let tabs = base(
            replacing: "      home: {id: main.home, type: Home}",
            with: "      home: {id: main.home, type: Home}\n      tabs: {id: main.tabs, kind: tabs}")
        let found = diagnostics(
            tabs.replacingOccurrences(
                of: "          - setStack: [home]",
                with: "          - setStack: [tabs]\n          - {setTabs: [home], in: tabs, selected: 1}"))
        #expect(found == ["31:51: 'selected: 1' names no tab of the 1 it sets; write a tab's index, 0 to 0"])
        let negative = diagnostics(
            tabs.replacingOccurrences(
                of: "          - setStack: [home]", with: "          - setStack: [tabs]\n          - {selectTab: -1, in: tabs}"))
        #expect(negative == ["31:25: 'selectTab' is a tab's index, not '-1'; write 'selectTab: 1'"])
        // A number with no fraction is an integer, as JSON Schema (and so the schema) counts one.
        let written = tabs.replacingOccurrences(
            of: "          - setStack: [home]",
            with: "          - setStack: [tabs]\n          - {setTabs: [home], in: tabs, selected: 0.0}\n"
                + "          - {selectTab: 0.0, in: tabs}")
        #expect(diagnostics(written) == [])
        #expect(diagnostics(written.replacingOccurrences(of: "selectTab: 0.0", with: "selectTab: 0.5")) == [
            "32:25: 'selectTab' is a tab's index, not '0.5'; write 'selectTab: 1'"
        ])
    }

    @Test func wrongContainer() {
        let found = diagnostics(
            base(replacing: "          - push: detail", with: "          - push: detail\n            onto: home"))
        #expect(
            found == [
                "36:19: 'push' needs a stack, and 'home' is a view; name a stack here (a flow's root or a screen of kind stack)"
            ])
    }

    @Test func alertOfAView() {
        let found = diagnostics(base(replacing: "          - alert: hello", with: "          - alert: home"))
        #expect(
            found == [
                "44:20: 'alert' shows a screen of kind alert, and 'home' is a view; write 'present: home', or give the screen 'kind: alert'"
            ])
    }

    @Test func flagOnAChildFlow() {
        let found = diagnostics(
            base(
                replacing: "          - flow: modal",
                with: "          - flow: modal\n            allowStepWhenNotPresented: true"))
        #expect(
            found == [
                "38:13: 'allowStepWhenNotPresented' does not apply to a child flow's stepper; leave it out (a flow's own stepper is never gated by visibility, R14)"
            ])
    }

    @Test func stepperListOnAChildFlow() {
        let found = diagnostics(
            base(replacing: "          - flow: modal", with: "          - flow: modal\n            steppers: [{one: close}]"))
        #expect(found == ["38:13: a child flow has one stepper; write 'stepper:' with one stepper"])
    }

    @Test func useWithoutChildFlows() {
        let found = diagnostics(
            base(
                replacing: "          - alert: hello",
                with: "          - alert: hello\n        use:\n          - when: ready\n            commands: []"))
        #expect(
            found == [
                "46:13: 'use' waits for child flows, and this step starts none; start a flow in 'contribute' ('- flow: <name>'), or move the commands to 'commands'"
            ])
    }

    @Test func notDeepLinkable() {
        let found = diagnostics(
            base(
                replacing: "      - {step: open, payload: {id: \"{id}\"}}",
                with: "      - {step: open, payload: {id: \"{id}\"}}\n      - close"))
        #expect(
            found == [
                "58:9: the step 'close' is not one an operator may deep-link; add 'deepLink: true' to the step 'close' under 'steps:'"
            ])
    }

    @Test func badURIPattern() {
        let found = diagnostics(base(replacing: "hello://detail/{id:int}", with: "hello://detail/x{id}"))
        #expect(
            found == [
                "55:11: URI pattern 'hello://detail/x{id}': 'x{id}': a variable is a whole segment; write scheme://host/segment/{name} or {name:int}, a variable being a whole segment"
            ])
    }

    @Test func uriPatternWithAQuery() {
        let found = diagnostics(base(replacing: "hello://detail/{id:int}", with: "hello://detail?id={id:int}"))
        #expect(
            found == [
                "55:11: URI pattern 'hello://detail?id={id:int}': '?' starts a query or fragment, which matching ignores; write scheme://host/segment/{name} or {name:int}, a variable being a whole segment"
            ])
    }

    @Test func unknownURIVariable() {
        let found = diagnostics(base(replacing: "payload: {id: \"{id}\"}", with: "payload: {id: \"{ident}\"}"))
        #expect(
            found == [
                "57:37: '{ident}' names no variable of the URI pattern 'hello://detail/{id:int}'; write one of '{id}'"
            ])
    }

    @Test func duplicateURIPattern() {
        let found = diagnostics(
            baseFile + "  - uri: \"hello://detail/{n:int}\"\n    steps: [{step: open, payload: {id: \"{n}\"}}]\n")
        #expect(
            found == [
                "58:11: the URI pattern 'hello://detail/{n:int}' matches the same URIs as 'hello://detail/{id:int}' (55:11); make the patterns differ in a fixed segment, or merge them"
            ])
    }

    @Test func screenNamedLikeAFlow() {
        let found = diagnostics(
            base(replacing: "      hello: {id", with: "      modal: {id: main.modal, type: Home}\n      hello: {id"))
        #expect(
            found == [
                "25:7: the screen name 'modal' is taken: a flow is named 'modal' too; give the screen another name"
            ])
    }

    @Test func flowNamedRoot() {
        let found = diagnostics(base(replacing: "modal", with: "root"))
        #expect(
            found == [
                "48:3: the flow name 'root' is taken: in a handler, 'root' names the handling flow's own root; give the flow another name"
            ])
    }

    @Test func flowStartingItself() {
        let selfStart = "      close:\n        contribute:\n          - flow: modal"
        #expect(
            diagnostics(base(replacing: "      close:\n        end: close", with: selfStart)) == [
                "54:19: the flow 'modal' starts itself; start another flow: its root is in use while it runs, so the child would be refused (D17)"
            ])
    }

    /// The root (or any flow every way to the starter goes through) is running when the starter starts it: the
    /// daemon would refuse the child (rootInUse), so the checks say so.
    @Test func flowStartingAFlowAboveIt() {
        let startsRoot = "      close:\n        contribute:\n          - flow: main"
        #expect(
            diagnostics(base(replacing: "      close:\n        end: close", with: startsRoot)) == [
                "54:19: the flow 'modal' starts 'main', which runs whenever 'modal' does (every way to 'modal' goes through it); start another flow: its root is in use while it runs, so the child would be refused (D17)"
            ])
    }

    /// The flows one handler starts are alive at once: a flow twice, or two flows with one root id, cannot be.
    @Test func handlerStartingOneRootTwice() {
        let twice = "          - flow: modal\n          - flow: modal"
        #expect(
            diagnostics(base(replacing: "          - flow: modal", with: twice)) == [
                "38:19: the handler of 'open' starts 'modal' twice; start each flow once, with roots of their own: two live flows cannot share a root, so the second would be refused (D17)"
            ])
        let other = "  other:\n    root: {id: modal.stack, kind: stack}\n    stepper: {one: close}\n    navigate:\n"
            + "      close:\n        end: close\ndeepLinks:"
        let sharing = base(replacing: "          - flow: modal", with: "          - flow: modal\n          - flow: other")
            .replacingOccurrences(of: "deepLinks:", with: other)
        #expect(
            diagnostics(sharing) == [
                "38:19: the handler of 'open' starts 'modal' and 'other', whose roots are both 'modal.stack'; start each flow once, with roots of their own: two live flows cannot share a root, so the second would be refused (D17)"
            ])
    }

    @Test func screenTwiceInOneCommand() {
        #expect(
            diagnostics(base(replacing: "- setStack: [home]", with: "- setStack: [home, home]")) == [
                "29:30: 'setStack' shows 'home' where it shows 'home' already (the id 'main.home'); name each screen once: a screen is in the UI once"
            ])
    }

    /// Placed twice, or presented twice over one screen, with only additions between: refused whatever the UI holds.
    @Test func screenPlacedTwiceInOneHandler() {
        #expect(
            diagnostics(base(replacing: "          - push: detail", with: "          - push: detail\n          - push: detail")) == [
                "36:19: 'push' shows 'detail', which 'detail' shows already in this handler (the id 'main.detail.{payload.id}'); leave one of them out, or remove the first (pop, dismiss) before: a screen is in the UI once"
            ])
        #expect(
            diagnostics(base(replacing: "          - push: detail", with: "          - push: detail\n          - pop: root\n          - push: detail")) == [])
        #expect(
            diagnostics(base(replacing: "              - present: modal", with: "              - present: modal\n              - alert: hello")) == [
                "42:24: 'alert' presents 'hello' over 'root', over which this handler presents 'modal'; dismiss first ('dismiss: root'): one presentation over a screen at a time"
            ])
    }

    @Test func templatedRootID() {
        let found = diagnostics(
            base(replacing: "{id: modal.stack, kind: stack}", with: "{id: \"modal.{payload.id}\", kind: stack}"))
        #expect(
            found == [
                "49:17: the root id of 'modal' is a template; write a fixed id: a flow's root is its identity (two live flows cannot share one, D17)"
            ])
    }

    @Test("A composite that is not a list, lists nothing, or has an initial step of its own is refused where written")
    func badComposites() {
        let home = "            stepper: {actions: {about: {step: open, payload: {id: 1}}}}"
        #expect(
            diagnostics(base(replacing: home, with: "            stepper: {composite: []}")) == [
                "32:34: the composite stepper lists no steppers; list one or more: "
                    + "'composite: [{remote: <stepper kind>}, {actions: {<action>: <step>}}]'"
            ])
        #expect(
            diagnostics(base(replacing: home, with: "            stepper: {composite: {one: close}}")) == [
                "32:34: 'composite' is a list of steppers, not a mapping; write it as a list: "
                    + "'composite: [{remote: <stepper kind>}, {actions: {<action>: <step>}}]'"
            ])
        #expect(
            diagnostics(base(replacing: home, with: "            stepper: {composite: [{one: close}], initial: start}"))
                == [
                    "32:50: a composite stepper has only its steppers (each its own initial step); leave 'initial' out, "
                        + "or write it on one of its steppers"
                ])
        #expect(
            diagnostics(base(replacing: home, with: "            stepper: {composite: [{one: clos}]}")) == [
                "32:41: unknown step 'clos'; write 'close', or declare 'clos' under 'steps:'"
            ])
    }
}
