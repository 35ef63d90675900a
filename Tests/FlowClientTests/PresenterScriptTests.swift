import FlowClient
import FlowCore
import Testing

/// A presenter script's arguments: each kind of step read and written back, and a clear error for each mistake.
struct PresenterScriptTests {
    @Test func everyKindOfStepIsReadAndWrittenBackAsItsArgument() throws {
        let arguments = [
            "wait:hello.greeting", "gone:about", "action:hello.greeting:about", #"action:login.form:submit:{"a":"b:c"}"#,
            "back:hello", "tab:shop:1", "dismiss:about",
        ]
        let script = try PresenterScript(parsing: arguments)
        #expect(
            script.steps == [
                .wait("hello.greeting"), .gone("about"), .action("hello.greeting", "about", .null),
                .action("login.form", "submit", ["a": "b:c"]), .back("hello"), .tab("shop", 1), .dismiss("about"),
            ])
        #expect(script.steps.map(\.description) == arguments)
        #expect(try PresenterScript(parsing: ["action:catalog.list:pick:7"]).steps == [.action("catalog.list", "pick", 7)])
    }

    @Test(arguments: [
        ("jump:home", PresenterScriptError.Code.unknownStep),
        ("", .unknownStep),
        ("wait", .malformedStep),
        ("wait:", .malformedStep),
        ("wait:a:b", .malformedStep),
        ("tab:shop", .malformedStep),
        ("action:home", .malformedStep),
        ("action::open", .malformedStep),
        ("tab:shop:first", .badArgument),
        ("tab:shop:-1", .badArgument),
        ("action:home:op en", .badArgument),
        ("action:home:open:{not json", .badArgument),
    ])
    func aStepThatCannotBeReadIsAClearError(argument: String, code: PresenterScriptError.Code) {
        #expect {
            try PresenterScript(parsing: ["wait:home", argument])
        } throws: { error in
            guard let error = error as? PresenterScriptError else { return false }
            return error.code == code && error.message.contains("'\(argument)'")
        }
    }

    /// Colons part a step, so an ID or an action's name that holds one cannot be scripted: the error says why, not
    /// that a part is empty or that a name may hold a colon.
    @Test func aColonInAnIDOrANameIsNamedAsTheCause() {
        func message(_ argument: String) -> String? {
            do {
                _ = try PresenterScript.Step(parsing: argument)
                return nil
            } catch { return error.message }
        }
        #expect(message("wait:a:b")?.hasSuffix("colons part it, so an ID with one cannot be given)") == true)
        #expect(message("action:cart:add:item")?.hasSuffix("after the name's colon, is not JSON: 'item'") == true)
        #expect(message("action:home:op en")?.hasSuffix("[A-Za-z0-9._-]{1,128} (a colon ends it)") == true)
    }

    @Test func aRunFailsUnlessEveryStepWasDoneOrAScriptWithoutStepsWasStopped() throws {
        let scripted = ScriptedPresenter(script: try PresenterScript(parsing: ["wait:home"]), timeout: .seconds(2))
        #expect(scripted.failure(of: .finished) == nil)
        #expect(scripted.failure(of: .timedOut) == "the steps did not complete within 2.0 s")
        #expect(scripted.failure(of: .timedOutUnsynced) == "the daemon did not send the session's UI within 2.0 s: is it running?")
        #expect(scripted.failure(of: .stopped) == "the presenter stopped before the steps completed")
        #expect(ScriptedPresenter(script: PresenterScript([]), timeout: nil).failure(of: .stopped) == nil)
    }
}
