#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>

int flowd_crc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

#define CRC32C_TARGET __attribute__((target("sse4.2")))
#define CRC32C_WORD(crc, word) ((uint32_t)_mm_crc32_u64((crc), (word)))
#define CRC32C_BYTE(crc, byte) _mm_crc32_u8((crc), (byte))

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

int flowd_crc32c_hardware_available(void) { return 1; }

#define CRC32C_TARGET
#define CRC32C_WORD(crc, word) __crc32cd((crc), (word))
#define CRC32C_BYTE(crc, byte) __crc32cb((crc), (byte))

#else

int flowd_crc32c_hardware_available(void) { return 0; }

#endif

#if defined(CRC32C_WORD)
CRC32C_TARGET
uint32_t flowd_crc32c_hardware(uint32_t state, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        state = CRC32C_WORD(state, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        state = CRC32C_BYTE(state, *p);
        p += 1;
        count -= 1;
    }
    return state;
}
#else
uint32_t flowd_crc32c_hardware(uint32_t state, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return state;
}
#endif
