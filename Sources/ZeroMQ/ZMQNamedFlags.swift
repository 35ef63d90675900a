/// A set of libzmq flags that knows its members' names, for logs and test failures.
package protocol ZMQNamedFlags: OptionSet, CustomStringConvertible where Element == Self {
    /// Each flag with its name, in the order a description lists them.
    static var names: [(flag: Self, name: String)] { get }
}

extension ZMQNamedFlags {
    /// The one flag's name (`pollIn`), or the names in brackets (`[pollIn, pollOut]`, `[]`).
    package var description: String {
        let matching = Self.names.filter { contains($0.flag) }.map(\.name)
        return matching.count == 1 ? matching[0] : "[" + matching.joined(separator: ", ") + "]"
    }
}
