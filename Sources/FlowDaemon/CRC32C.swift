internal import CCRC32C

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): with the CPU's instruction where it has one (SSE4.2,
/// AArch64's CRC extension), else table-driven, eight bytes per step ("slicing-by-8").
struct CRC32C {
    private(set) var state: UInt32 = 0xFFFF_FFFF

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// Eight tables of 256 entries, one after the other: table 0 is the classic byte-at-a-time table; table k
    /// advances a byte's contribution past k more zero bytes.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[index] = crc
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Whether ``update(_:)`` uses the CPU's instruction.
    static let usesHardware = flowd_crc32c_hardware_available() != 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let pointer = bytes.baseAddress else { return }
        state = Self.usesHardware
            ? flowd_crc32c_hardware(state, pointer, bytes.count) : Self.tableUpdate(state, bytes)
    }

    /// `state` advanced over `bytes` by the tables; what the CPU's instruction computes (tested on the same bytes).
    static func tableUpdate(_ state: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard var pointer = bytes.baseAddress else { return state }
        var remaining = bytes.count
        var crc = state
        Self.tables.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
            while remaining >= 8 {
                let low = pointer.loadUnaligned(as: UInt32.self).littleEndian ^ crc
                let high = pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                pointer += 8
                remaining -= 8
            }
            while remaining > 0 {
                crc = t[Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                pointer += 1
                remaining -= 1
            }
        }
        return crc
    }

    mutating func update(littleEndian value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { update($0) }
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32C()
        if bytes.withContiguousStorageIfAvailable({ crc.update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { crc.update($0) }
        }
        return crc.value
    }
}
