import Synchronization

/// The default ``Flow/flowName`` of each flow type, worked out once: `String(describing:)` of a type reads its
/// metadata every time, and a coordinator keeps its flow's name (docs/PERFORMANCE.md: 7 % of a restart that makes
/// 100 000 sessions again).
enum FlowNames {
    private static let names = Mutex<[ObjectIdentifier: String]>([:])

    static func name(of type: any Flow.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = names.withLock({ $0[key] }) { return name }
        let name = String(describing: type)
        names.withLock { $0[key] = name }
        return name
    }
}
