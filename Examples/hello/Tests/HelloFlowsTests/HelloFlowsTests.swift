import FlowCore
import HelloFlows
import Testing

/// The hello flows in one process: what a presenter shows after each step, and which steppers serve which screen.
@Suite struct HelloFlowsTests {
    @Test func aSessionShowsTheHomeScreenWithTheGreeterAsTheRootFlowsStepper() throws {
        let session = try HelloSession()
        #expect(session.model.visiblePresentables == ["hello", "hello.home"])
        #expect(session.remoteKinds(on: "hello") == [HelloStep.greeterKind])
        #expect(session.navigations == ["flow=HelloFlow step=helloIsRequired"])
    }

    @Test func theGreetersStepPushesTheGreeting() throws {
        let session = try HelloSession()
        session.remote(HelloStep.greeterKind, on: "hello", emits: HelloStep.greetingIsReady("Hello, test!"))
        #expect(session.model.visiblePresentables == ["hello", "hello.greeting"])
        #expect(session.model.screen("hello.greeting")?.data == .string("Hello, test!"))
        #expect(session.model.children(of: "hello") == ["hello.home", "hello.greeting"])

        try session.tapBack(in: "hello")
        #expect(session.model.visiblePresentables == ["hello", "hello.home"])
    }

    @Test func aboutIsAModalFlowThatItsCloseActionEnds() throws {
        let session = try HelloSession()
        session.remote(HelloStep.greeterKind, on: "hello", emits: HelloStep.greetingIsReady("Hi"))

        session.act("about", on: "hello.greeting")
        #expect(session.model.presented(over: "hello") == "about")
        #expect(session.model.isVisible("about.text"))
        #expect(!session.model.isVisible("hello.greeting"))

        session.act("close", on: "about.text")
        #expect(!session.model.contains("about"))
        #expect(session.model.visiblePresentables == ["hello", "hello.greeting"])
        #expect(
            session.navigations == [
                "flow=HelloFlow step=helloIsRequired", "flow=HelloFlow step=greetingIsReady(\"Hi\")",
                "flow=HelloFlow step=aboutIsRequired", "flow=AboutFlow step=aboutIsShown",
                "flow=AboutFlow step=aboutIsComplete", "flow=HelloFlow step=aboutIsComplete",
            ]
        )
    }

    @Test func anActionNobodyMapsChangesNothing() throws {
        let session = try HelloSession()
        session.remote(HelloStep.greeterKind, on: "hello", emits: HelloStep.greetingIsReady("Hi"))
        let before = session.model
        session.act("fly", on: "hello.greeting")
        #expect(session.model == before)
    }
}
