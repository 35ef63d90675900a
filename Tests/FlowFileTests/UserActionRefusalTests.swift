import FlowCore
import FlowDaemon
import FlowFile
import FlowWire
import FlowdTesting
import Testing

/// `USER_ACTION` on a daemon running a flow file: on a screen of a declared type, an action the type does not list
/// is refused `unknownAction`, and one whose payload is not of the action's declared type `invalidPayload`; neither
/// reaches a stepper. A screen whose type the file does not declare takes any action.
struct UserActionRefusalTests {
    static let app = """
        flowfile: 1
        app: taps
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          opened: {}
          picked: {payload: int}
        screenTypes:
          Home:
            actions:
              about: {}
              pick: {payload: int}
        flows:
          main:
            root: {id: main, kind: stack}
            screens:
              home: {id: main.home, type: Home}
              about: {id: main.about}
              item: {id: "main.item.{payload}"}
            navigate:
              start:
                commands:
                  - setStack: [home]
                contribute:
                  - screen: home
                    stepper: {actions: {about: opened, pick: picked}}
              opened:
                commands:
                  - push: about
              picked:
                commands:
                  - push: item
        """

    let daemon: EmbeddedDaemon
    let presenter: FakePresenter

    init() throws {
        daemon = EmbeddedDaemon(application: FileApplication(try FlowFile.parse(Self.app, file: "taps.flows.yaml")))
        presenter = daemon.connectPresenter()
    }

    private var screens: [PresentableID] { daemon.ui()?.presentables ?? [] }

    @Test func anActionTheScreenTypeListsWithItsPayloadTypeIsDelivered() {
        #expect(presenter.act("pick", on: "main.home", payload: 7)?.delivered == 1)
        #expect(screens.contains("main.item.7"))
        #expect(presenter.record.errors.isEmpty)
    }

    @Test func anActionTheScreenTypeDoesNotListIsRefusedUnknownAction() throws {
        let seq = daemon.seq()
        #expect(presenter.act("pikc", on: "main.home", payload: 7) == nil)
        let error = try #require(presenter.record.errors.last)
        #expect(error.code == .unknownAction && error.type == "USER_ACTION")
        #expect(error.message == "the screen type 'Home' accepts no action 'pikc' (it accepts 'about', 'pick')")
        #expect(daemon.seq() == seq)
    }

    @Test func anActionWhosePayloadIsNotOfItsDeclaredTypeIsRefusedInvalidPayload() throws {
        let seq = daemon.seq()
        #expect(presenter.act("pick", on: "main.home", payload: "seven") == nil)
        let wrong = try #require(presenter.record.errors.last)
        #expect(wrong.code == .invalidPayload && wrong.type == "USER_ACTION")
        #expect(wrong.message == "the action 'pick' takes a payload of type int, not \"seven\"")
        #expect(presenter.act("about", on: "main.home", payload: 3) == nil, "about declares no payload")
        #expect(presenter.record.errors.last?.code == .invalidPayload)
        #expect(daemon.seq() == seq)
        #expect(!screens.contains("main.about"))
        #expect(presenter.act("about", on: "main.home")?.delivered == 1, "judged again: a refusal is not remembered")
        #expect(screens.contains("main.about"))
    }

    @Test func aScreenWhoseTypeTheFileDoesNotDeclareTakesAnyAction() {
        #expect(presenter.act("anything", on: "main", payload: 1)?.delivered == 0)
        #expect(presenter.record.errors.isEmpty)
    }
}
