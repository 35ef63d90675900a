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
/* Long inputs run as three streams of CRC32C_STRIDE bytes at once: the instruction's latency is three times its
   throughput, so one stream leaves the unit idle two cycles in three. The streams are joined by multiplying a
   register by x^(8 * CRC32C_STRIDE) mod P (CRC32C_SHIFT_1) or x^(16 * CRC32C_STRIDE) mod P (CRC32C_SHIFT_2),
   bit 31 being x^0 as in the reflected register. */
#define CRC32C_STRIDE 8192
#define CRC32C_SHIFT_1 0x28461564u
#define CRC32C_SHIFT_2 0xbf455269u

/* a * b mod P, both reflected polynomials. */
static uint32_t crc32c_multiply(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
        if (a & bit) product ^= b;
        b = (b & 1) ? (b >> 1) ^ 0x82F63B78u : b >> 1;
    }
    return product;
}

CRC32C_TARGET
uint32_t flowd_crc32c_hardware(uint32_t state, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    while (count >= 3 * CRC32C_STRIDE) {
        uint32_t first = state, second = 0, third = 0;
        for (size_t offset = 0; offset < CRC32C_STRIDE; offset += 8) {
            uint64_t a, b, c;
            memcpy(&a, p + offset, 8);
            memcpy(&b, p + CRC32C_STRIDE + offset, 8);
            memcpy(&c, p + 2 * CRC32C_STRIDE + offset, 8);
            first = CRC32C_WORD(first, a);
            second = CRC32C_WORD(second, b);
            third = CRC32C_WORD(third, c);
        }
        state = crc32c_multiply(CRC32C_SHIFT_2, first) ^ crc32c_multiply(CRC32C_SHIFT_1, second) ^ third;
        p += 3 * CRC32C_STRIDE;
        count -= 3 * CRC32C_STRIDE;
    }
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
