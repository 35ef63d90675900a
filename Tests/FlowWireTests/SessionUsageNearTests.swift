import FlowWire
import Testing

/// ``SessionUsage/near(_:percent:)``: what `flowctl sessions` marks (docs/LIMITS.md, "One session's size").
struct SessionUsageNearTests {
    private let bounds = SessionUsage(screens: 100, uiBytes: 1000, attachments: 10, outboxCommands: 4, outboxBytes: 1024)

    private func usage(screens: Int = 0, uiBytes: Int = 0, attachments: Int = 0) -> SessionUsage {
        SessionUsage(screens: screens, uiBytes: uiBytes, attachments: attachments, outboxCommands: 4, outboxBytes: 5000)
    }

    @Test func fromNinetyPercentOfABoundThatRefusesStepsAndNotBelow() {
        #expect(usage(screens: 89, uiBytes: 899, attachments: 8).near(bounds).isEmpty, "below 90 %, and a full outbox")
        let near = usage(screens: 90, uiBytes: 1500, attachments: 9).near(bounds)
        #expect(near.map(\.setting) == ["daemon.max_session_screens", "daemon.max_session_ui_bytes", "daemon.max_session_attachments"])
        #expect(near.map(\.percent) == [90, 150, 90])
        #expect(usage(uiBytes: 999).near(bounds).map(\.percent) == [99], "rounded down")
    }

    @Test func aBoundOfZeroOrNearIntMaxMarksNothingAndDoesNotOverflow() {
        let odd = SessionUsage(screens: 0, uiBytes: .max, attachments: 10, outboxCommands: 1, outboxBytes: 1)
        #expect(usage(screens: 5, uiBytes: .max / 2).near(odd).isEmpty)
    }
}
