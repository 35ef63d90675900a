import FlowCore
import Foundation

/// Parses a JSON text as a JSON value, with `JSONDecoder`.
func jsonValue(_ bytes: [UInt8]) throws -> StepPayload {
    try JSONDecoder().decode(StepPayload.self, from: Data(bytes))
}
