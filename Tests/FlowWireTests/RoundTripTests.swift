import FlowCore
import FlowWire
import Foundation
import Testing
import WireSamples

/// Every navigation command, one per op.
let everyCommand: [NavigationCommand] = [
    .setRoot(.stack("app")),
    .push(.view("movie", type: "MovieDetail", data: ["movie": 1]), onto: "stack"),
    .pop(stack: "stack"),
    .popToRoot(stack: "stack"),
    .setStack("stack", [.view("a", type: "A"), .view("b", type: "B")]),
    .present(.alert("alert", message: "Hi"), over: "app"),
    .dismiss(presentedOver: "app"),
    .setTabs("tabs", [.stack("one"), .stack("two")], selected: 1),
    .selectTab("tabs", index: 0),
    .showMaster("split", .view("master", type: "List")),
    .showDetail("split", .view("detail", type: "Detail", data: "text")),
]

struct RoundTripTests {
    @Test(arguments: WireSamples.messages)
    func encodeThenDecodeGivesTheSameMessage(_ message: WireMessage) throws {
        let codec = WireCodec()
        let frames = codec.encode(message)
        #expect(frames.count == 3)
        #expect(frames[0] == Array("FLOWD1".utf8))
        #expect(frames[1] == Array(message.type.rawValue.utf8))
        #expect(try codec.decode(frames, from: message.sender) == message)
    }

    @Test(arguments: WireSamples.messages)
    func theBodyIsOneJSONObject(_ message: WireMessage) throws {
        let body = WireCodec().encodeBody(message)
        guard case .object = try jsonValue(body) else {
            Issue.record("not a JSON object: \(String(decoding: body, as: UTF8.self))")
            return
        }
    }

    @Test(arguments: everyCommand)
    func everyCommandRoundTripsInACommandMessage(_ command: NavigationCommand) throws {
        let message = WireMessage.daemon(.command(CommandMessage(session: "default", seq: 1, command: command)))
        #expect(try WireCodec().decode(WireCodec().encode(message), from: .daemon) == message)
    }

    @Test func everyMessageTypeIsRoundTripped() {
        let tested = Set(WireSamples.messages.map(\.type))
        #expect(tested == Set(MessageType.allCases))
    }

    @Test func theRequestNumberIsTheBodysReq() {
        for message in WireSamples.messages {
            let body = try? jsonValue(WireCodec().encodeBody(message))
            let req: UInt64? = {
                guard case .object(let members)? = body, case .int(let value)? = members["req"] else { return nil }
                return UInt64(value)
            }()
            if message.type == .error {
                continue  // an ERROR's req is the failing request's, and may be null
            }
            #expect(message.req == req, "\(message.type)")
        }
    }

    @Test(
        arguments: WireSamples.messages.compactMap { message -> EventMessage? in
            if case .daemon(.event(let event)) = message { return event }
            return nil
        })
    func anEventTravelsInFourFramesUnderItsSessionsTopic(_ event: EventMessage) throws {
        let codec = WireCodec()
        let frames = codec.encodeEvent(event)
        #expect(frames.count == 4)
        #expect(frames[0] == Array("nav/default".utf8))
        #expect(Array(frames.dropFirst()) == codec.encode(DaemonMessage.event(event)))
        #expect(try codec.decodeEvent(frames) == event)
    }

    @Test func anEventWithoutItsTopicIsAMalformedFrame() {
        let event = EventMessage(event: "will", session: "s", flow: "F", coordinator: 1, step: Step("a"), text: "t")
        let codec = WireCodec()
        #expect(throws: WireError(.malformedFrame, "")) { try codec.decodeEvent(codec.encode(DaemonMessage.event(event))) }
        #expect(throws: WireError(.unknownType, "")) {
            try codec.decodeEvent([Array("nav/s".utf8)] + codec.encode(.bye))
        }
    }
}
