#ifndef FLOWD_CCRC32C_H
#define FLOWD_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has a CRC-32C instruction flowd_crc32c_hardware uses (SSE4.2 on x86-64, the CRC extension on
/// AArch64).
int flowd_crc32c_hardware_available(void);

/// `state` (not inverted: the running value of a reflected CRC-32C, polynomial 0x82F63B78) advanced over `count`
/// bytes with the CPU's instruction. Call only when flowd_crc32c_hardware_available() says 1.
uint32_t flowd_crc32c_hardware(uint32_t state, const void *bytes, size_t count);

#endif
