#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import FlowCore

extension FlowdConfigFile {
    /// The fields of the config file `data` that flowd does not read, as paths (`daemon.max_sesions`), sorted within
    /// each object. Decoding skips them, so a misspelt field would leave its setting at the default without a word:
    /// flowd logs each at `warning` as it starts.
    package static func unknownFields(in data: Data) -> [String] {
        guard case .object(let top)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return [] }
        var unknown = unknown(in: top, known: CodingKeys.allCases, prefix: "")
        if case .object(let section)? = top["daemon"] {
            unknown += Self.unknown(in: section, known: DaemonConfiguration.CodingKeys.allCases, prefix: "daemon.")
        }
        if case .object(let section)? = top["journal"] {
            unknown += Self.unknown(in: section, known: Journal.CodingKeys.allCases, prefix: "journal.")
        }
        if case .object(let section)? = top["sockets"] {
            unknown += Self.unknown(in: section, known: Sockets.CodingKeys.allCases, prefix: "sockets.")
        }
        if case .object(let section)? = top["security"] {
            unknown += Self.unknown(in: section, known: Security.CodingKeys.allCases, prefix: "security.")
            if case .array(let clients)? = section["clients"] {
                for case (let index, .object(let entry)) in clients.enumerated() {
                    unknown += Self.unknown(
                        in: entry, known: AllowedClient.CodingKeys.allCases, prefix: "security.clients.\(index).")
                }
            }
        }
        return unknown
    }

    private static func unknown<Key: CodingKey>(
        in object: [String: JSONValue], known: [Key], prefix: String
    ) -> [String] {
        let names = Set(known.map(\.stringValue))
        return object.keys.filter { !names.contains($0) }.sorted().map { prefix + $0 }
    }
}
