#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a `Decodable` from a ``JSONValue`` already read, as `JSONDecoder` (default strategies) decodes the same
/// JSON text, without printing and parsing it again: a saved state's values are read once by a fast reader, then
/// typed here (docs/PERFORMANCE.md, "State snapshots").
///
/// It covers only what it reads exactly as `JSONDecoder` does: a value holding a double, a number that does not fit
/// the asked type, `Date`, `Data`, `URL` or `Decimal`, or any mismatch throws; callers then decode with `JSONDecoder`,
/// which also words the error. `Sendable`: no state.
package enum JSONValueDecoder {
    /// Why the fast path did not decode: the caller falls back to `JSONDecoder`.
    package struct Unsupported: Error, Hashable, Sendable {}

    /// `value` as a `T`, or ``Unsupported`` (any error thrown means: use `JSONDecoder`).
    package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        guard !value.containsDouble else { throw Unsupported() }
        return try ValueDecoder(value: value).typed(T.self)
    }
}

extension JSONValue {
    /// Whether a double is anywhere in the value (its text form is the one thing `JSONDecoder` may read otherwise).
    var containsDouble: Bool {
        switch self {
        case .double: true
        case .null, .bool, .int, .string: false
        case .array(let values): values.contains(where: \.containsDouble)
        case .object(let members): members.values.contains(where: \.containsDouble)
        }
    }
}

/// One value under decoding: the `Decoder` a type's `init(from:)` sees.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw JSONValueDecoder.Unsupported() }
        return KeyedDecodingContainer(KeyedValues<Key>(members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let values) = value else { throw JSONValueDecoder.Unsupported() }
        return UnkeyedValues(values: values)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(value: value) }

    /// `value` as a `T`: the primitives directly, the values `JSONDecoder` treats specially refused, the rest through
    /// `T.init(from:)`.
    func typed<T: Decodable>(_ type: T.Type) throws -> T {
        // `unsafeBitCast`: T is the type compared with, so this is the value itself (a dynamic cast cost more).
        if T.self == JSONValue.self { return unsafeBitCast(value, to: T.self) }
        if T.self == String.self { return unsafeBitCast(try string(), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try boolean(), to: T.self) }
        if T.self == PresentableID.self { return unsafeBitCast(PresentableID(try string()), to: T.self) }
        if T.self == PresentationModel.self, let model = try PresentationModel(savedValue: value) {
            return unsafeBitCast(model, to: T.self)
        }
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw JSONValueDecoder.Unsupported()
        }
        return try T(from: self)
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw JSONValueDecoder.Unsupported() }
        return text
    }

    func boolean() throws -> Bool {
        guard case .bool(let flag) = value else { throw JSONValueDecoder.Unsupported() }
        return flag
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case .int(let number) = value, let exact = I(exactly: number) else { throw JSONValueDecoder.Unsupported() }
        return exact
    }

    /// An integer as a floating-point number, when the conversion is exact (as `JSONDecoder` reads `5` as `5.0`).
    func floating<F: BinaryFloatingPoint>(_ type: F.Type) throws -> F {
        guard case .int(let number) = value, let exact = F(exactly: number) else { throw JSONValueDecoder.Unsupported() }
        return exact
    }
}

private struct KeyedValues<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> ValueDecoder {
        guard let value = members[key.stringValue] else { throw JSONValueDecoder.Unsupported() }
        return ValueDecoder(value: value)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).value == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).boolean() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).floating(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).floating(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).typed(type) }

    /// One lookup instead of the default's three; absent and `null` are `nil`, as for `JSONDecoder`.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try ValueDecoder(value: value).typed(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw JSONValueDecoder.Unsupported() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw JSONValueDecoder.Unsupported() }
}

private struct UnkeyedValues: UnkeyedDecodingContainer {
    let values: [JSONValue]
    var codingPath: [any CodingKey] { [] }
    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }
    private(set) var currentIndex = 0

    init(values: [JSONValue]) { self.values = values }

    private mutating func next() throws -> ValueDecoder {
        guard currentIndex < values.count else { throw JSONValueDecoder.Unsupported() }
        defer { currentIndex += 1 }
        return ValueDecoder(value: values[currentIndex])
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < values.count else { throw JSONValueDecoder.Unsupported() }
        guard values[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().boolean() }
    mutating func decode(_ type: String.Type) throws -> String { try next().string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().floating(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().floating(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().typed(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { throw JSONValueDecoder.Unsupported() }
}

private struct SingleValue: SingleValueDecodingContainer {
    let value: JSONValue
    var codingPath: [any CodingKey] { [] }
    private var decoder: ValueDecoder { ValueDecoder(value: value) }

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.boolean() }
    func decode(_ type: String.Type) throws -> String { try decoder.string() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.floating(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.floating(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.typed(type) }
}
