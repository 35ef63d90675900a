import FlowCore
import Foundation

/// Parses a JSON text as a JSON value, with `JSONDecoder`.
func jsonValue(_ bytes: [UInt8]) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
}
