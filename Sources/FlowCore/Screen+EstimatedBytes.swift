/// What a screen counts against a byte bound (a session's outbox and its UI, docs/LIMITS.md): an estimate near both its
/// JSON and its memory, made from the screen alone, so that a saved screen read back counts as it counted before.
///
/// A screen counts 32 bytes, its ID's and type's UTF-8 bytes, and its data: 8 bytes a JSON value, plus the UTF-8 bytes
/// of its strings and keys. Numbers count alike whatever their JSON spelling (a saved `1.0` may come back as `1`), and
/// a native string's UTF-8 count is stored, so a string is not read.
extension Screen {
    /// Inlined, with the common `data` (a scalar or a string) counted in place: a call between the screen's read and
    /// its use made the compiler copy the screen out of its array or box first (~200 instructions a command).
    @inlinable @inline(__always)
    package var estimatedBytes: Int {
        let text = 32 &+ id.rawValue.utf8.count &+ type.utf8.count
        switch data {
        case .null, .bool, .int, .double: return text &+ 8
        case .string(let string): return text &+ 8 &+ string.utf8.count
        case .array, .object: return text &+ data.estimatedBytes
        }
    }
}

extension JSONValue {
    /// 8 bytes a value, and the UTF-8 bytes of its strings and keys (one walk of the value).
    @usableFromInline
    package var estimatedBytes: Int {
        switch self {
        case .null, .bool, .int, .double: return 8
        case .string(let string): return 8 &+ string.utf8.count
        case .array(let values):
            var bytes = 8
            for value in values { bytes &+= value.estimatedBytes }
            return bytes
        case .object(let members):
            var bytes = 8
            for (key, value) in members { bytes &+= key.utf8.count &+ value.estimatedBytes }
            return bytes
        }
    }
}
