/* The word interleave of tilespec.image.packing, in C: a second
 * implementation of packing.store and packing.load (the numpy ones stay the
 * fallback, and tests/image/test_kernel.py compares the two byte for byte).
 *
 * An array of words (ndim dims, any strides in bytes) and g arrays of codes
 * with the same dims (any strides): field s of a word holds code s, at bits
 * [s*bits, (s+1)*bits).  Codes are unsigned integers of csize bytes; words
 * of wsize bytes.  Plain C99, no Python headers: loaded with ctypes.
 */
#include <stdint.h>
#include <string.h>

#define MAX_DIMS 32
#define MAX_PARTS 64

static uint64_t get(const char *p, int size) {
    switch (size) {
    case 1: return *(const uint8_t *)p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void put(char *p, int size, uint64_t v) {
    switch (size) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); break; }
    case 4: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Rows whose words and codes are contiguous and whose g, sizes and bits are
 * constants: loops the compiler turns into SIMD. */
#define ROW_STORE(NAME, W, C, G, BITS)                                       \
    static void NAME(W *restrict out, const C *const *in, int64_t n,       \
                     uint64_t m) {                                           \
        const C *restrict a[G];                                              \
        for (int s = 0; s < G; s++) a[s] = in[s];                            \
        for (int64_t i = 0; i < n; i++) {                                    \
            W w = 0;                                                         \
            for (int s = 0; s < G; s++)                                      \
                w |= (W)((W)(a[s][i] & (C)m) << (s * BITS));                 \
            out[i] = w;                                                      \
        }                                                                    \
    }
#define ROW_LOAD(NAME, W, C, G, BITS)                                        \
    static void NAME(const W *restrict in, C *const *out, int64_t n,       \
                     uint64_t m) {                                           \
        C *restrict a[G];                                                    \
        for (int s = 0; s < G; s++) a[s] = out[s];                           \
        for (int64_t i = 0; i < n; i++) {                                    \
            W w = in[i];                                                     \
            for (int s = 0; s < G; s++)                                      \
                a[s][i] = (C)((w >> (s * BITS)) & (W)m);                     \
        }                                                                    \
    }

/* The same, sign-extending each field of BITS bits to the code (SC: the
 * code's signed type; the shifts are of ints, arithmetic to the right). */
#define ROW_LOAD_SIGNED(NAME, W, C, SC, G, BITS)                             \
    static void NAME(const W *restrict in, C *const *out, int64_t n) {      \
        C *restrict a[G];                                                    \
        for (int s = 0; s < G; s++) a[s] = out[s];                           \
        for (int64_t i = 0; i < n; i++) {                                    \
            W w = in[i];                                                     \
            for (int s = 0; s < G; s++)                                      \
                a[s][i] = (C)(SC)((SC)((C)(w >> (s * BITS))                  \
                                       << (8 * sizeof(C) - BITS))            \
                                  >> (8 * sizeof(C) - BITS));                \
        }                                                                    \
    }

ROW_STORE(store_u32_u8_4, uint32_t, uint8_t, 4, 8)
ROW_STORE(store_u32_u16_2, uint32_t, uint16_t, 2, 16)
ROW_STORE(store_u8_u8_2, uint8_t, uint8_t, 2, 4)
ROW_LOAD(load_u32_u8_4, uint32_t, uint8_t, 4, 8)
ROW_LOAD(load_u32_u16_2, uint32_t, uint16_t, 2, 16)
ROW_LOAD(load_u8_u8_2, uint8_t, uint8_t, 2, 4)
ROW_LOAD_SIGNED(load_s8_s8_2, uint8_t, uint8_t, int8_t, 2, 4)
ROW_LOAD_SIGNED(load_s32_s8_4, uint32_t, uint8_t, int8_t, 4, 8)
ROW_LOAD_SIGNED(load_s32_s16_2, uint32_t, uint16_t, int16_t, 2, 16)

typedef struct {
    int ndim, g, wsize, csize, bits;
    const int64_t *dims, *wstrides, *pstrides; /* pstrides: g rows of ndim */
} Geometry;

static uint64_t low_bits(int n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

/* One row (the last dim) of the interleave, either way. */
static void row(const Geometry *q, char *w, char **p, uint64_t mask, int width,
                int sign, int storing) {
    int64_t n = q->dims[q->ndim - 1];
    int64_t ws = q->wstrides[q->ndim - 1];
    int g = q->g, bits = q->bits, cs = q->csize, wz = q->wsize;
    int contiguous = ws == wz;
    for (int s = 0; s < g; s++)
        contiguous &= q->pstrides[s * q->ndim + q->ndim - 1] == cs;
    if (contiguous && storing && bits == 8 * cs) {
        if (wz == 4 && cs == 1 && g == 4) { store_u32_u8_4((uint32_t *)w, (const uint8_t *const *)p, n, mask); return; }
        if (wz == 4 && cs == 2 && g == 2) { store_u32_u16_2((uint32_t *)w, (const uint16_t *const *)p, n, mask); return; }
    }
    if (contiguous && storing && wz == 1 && cs == 1 && g == 2 && bits == 4) {
        store_u8_u8_2((uint8_t *)w, (const uint8_t *const *)p, n, mask); return;
    }
    if (contiguous && !storing && !sign && width == bits) {
        if (wz == 4 && cs == 1 && g == 4 && bits == 8) { load_u32_u8_4((const uint32_t *)w, (uint8_t *const *)p, n, mask); return; }
        if (wz == 4 && cs == 2 && g == 2 && bits == 16) { load_u32_u16_2((const uint32_t *)w, (uint16_t *const *)p, n, mask); return; }
        if (wz == 1 && cs == 1 && g == 2 && bits == 4) { load_u8_u8_2((const uint8_t *)w, (uint8_t *const *)p, n, mask); return; }
    }
    if (contiguous && !storing && sign && width == bits) {
        if (wz == 4 && cs == 1 && g == 4 && bits == 8) { load_s32_s8_4((const uint32_t *)w, (uint8_t *const *)p, n); return; }
        if (wz == 4 && cs == 2 && g == 2 && bits == 16) { load_s32_s16_2((const uint32_t *)w, (uint16_t *const *)p, n); return; }
        if (wz == 1 && cs == 1 && g == 2 && bits == 4) { load_s8_s8_2((const uint8_t *)w, (uint8_t *const *)p, n); return; }
    }
    for (int64_t i = 0; i < n; i++) {
        char *wp = w + i * ws;
        if (storing) {
            uint64_t v = 0;
            for (int s = 0; s < g; s++)
                v |= (get(p[s] + i * q->pstrides[s * q->ndim + q->ndim - 1], cs) & mask)
                     << (s * bits);
            put(wp, wz, v);
        } else {
            uint64_t v = get(wp, wz);
            for (int s = 0; s < g; s++) {
                uint64_t f = (v >> (s * bits)) & mask;
                if (sign && width < 64 && (f >> (width - 1)) & 1) f |= ~low_bits(width);
                put(p[s] + i * q->pstrides[s * q->ndim + q->ndim - 1], cs, f);
            }
        }
    }
}

static int run(const Geometry *q, char *words, char *const *parts, uint64_t mask, int width,
               int sign, int storing) {
    int nd = q->ndim, g = q->g;
    if (nd < 1 || nd > MAX_DIMS || g < 1 || g > MAX_PARTS) return -1;
    if (q->bits < 1 || q->bits * g > 8 * q->wsize || q->bits > 8 * q->csize) return -1;
    for (int d = 0; d < nd; d++)
        if (q->dims[d] <= 0) return 0;
    int64_t index[MAX_DIMS] = {0};
    char *p[MAX_PARTS];
    for (;;) {
        char *w = words;
        for (int s = 0; s < g; s++) p[s] = parts[s];
        for (int d = 0; d < nd - 1; d++) {
            w += index[d] * q->wstrides[d];
            for (int s = 0; s < g; s++) p[s] += index[d] * q->pstrides[s * nd + d];
        }
        row(q, w, p, mask, width, sign, storing);
        int d = nd - 2;
        while (d >= 0 && ++index[d] == q->dims[d]) index[d--] = 0;
        if (d < 0) return 0;
    }
}

/* packing.store: word = OR over s of (code_s & mask) << (s * bits). */
int tilespec_store(int ndim, const int64_t *dims, char *words, const int64_t *wstrides,
                   int wsize, int g, char *const *parts, const int64_t *pstrides, int csize,
                   int bits, uint64_t mask) {
    Geometry q = {ndim, g, wsize, csize, bits, dims, wstrides, pstrides};
    return run(&q, words, parts, mask & low_bits(bits), bits, 0, 1);
}

/* packing.load: code_s = the low width bits of field s, sign-extended when
 * sign is set (two's complement in the code's csize bytes). */
int tilespec_load(int ndim, const int64_t *dims, char *words, const int64_t *wstrides,
                  int wsize, int g, char *const *parts, const int64_t *pstrides, int csize,
                  int bits, int width, int sign) {
    Geometry q = {ndim, g, wsize, csize, bits, dims, wstrides, pstrides};
    if (width < 1 || width > bits) return -1;
    return run(&q, words, parts, low_bits(width), width, sign, 0);
}
