/* The word interleave of tilespec.image.packing, in C: a second
 * implementation of packing.store and packing.load (the numpy ones stay the
 * fallback, and tests/image/test_kernel.py compares the two byte for byte).
 *
 * An array of words (ndim dims, any strides in bytes) and g arrays of codes
 * with the same dims (any strides): field s of a word holds code s, at bits
 * [s*bits, (s+1)*bits).  Codes are unsigned integers of csize bytes; words
 * of wsize bytes.  Plain C99, no Python headers: loaded with ctypes.
 *
 * The codes are the logical array seen in the image's dims (a strided view,
 * image.strided), so the tiling and the interleave are one pass: each row
 * of words reads g rows of codes.  The rows of the benchmarked layouts
 * (four u8 rows into u32 words, two u16 rows into u32, two 4-bit rows into
 * bytes) run 16 bytes a step in SSE2 where the compiler targets it (every
 * x86-64), else in loops the compiler vectorises; other words go field by
 * field.
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
    static void NAME(char *wp, char *const *in, int64_t n, uint64_t m) {     \
        W *restrict out = (W *)wp;                                           \
        const C *restrict a[G];                                              \
        for (int s = 0; s < G; s++) a[s] = (const C *)in[s];                 \
        for (int64_t i = 0; i < n; i++) {                                    \
            W w = 0;                                                         \
            for (int s = 0; s < G; s++)                                      \
                w |= (W)((W)(a[s][i] & (C)m) << (s * BITS));                 \
            out[i] = w;                                                      \
        }                                                                    \
    }
#define ROW_LOAD(NAME, W, C, G, BITS)                                        \
    static void NAME(char *wp, char *const *out, int64_t n, uint64_t m) {    \
        const W *restrict in = (const W *)wp;                                \
        C *restrict a[G];                                                    \
        for (int s = 0; s < G; s++) a[s] = (C *)out[s];                      \
        for (int64_t i = 0; i < n; i++) {                                    \
            W w = in[i];                                                     \
            for (int s = 0; s < G; s++)                                      \
                a[s][i] = (C)((w >> (s * BITS)) & (W)m);                     \
        }                                                                    \
    }

/* The same, sign-extending each field of BITS bits to the code (SC: the
 * code's signed type; the shifts are of ints, arithmetic to the right). */
#define ROW_LOAD_SIGNED(NAME, W, C, SC, G, BITS)                             \
    static void NAME(char *wp, char *const *out, int64_t n, uint64_t m) {    \
        const W *restrict in = (const W *)wp;                                \
        C *restrict a[G];                                                    \
        (void)m;                                                             \
        for (int s = 0; s < G; s++) a[s] = (C *)out[s];                      \
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

#ifdef __SSE2__
/* SSE2 (every x86-64 has it): the three interleaves of the byte images'
 * common layouts -- four u8 rows into u32 words (s8 (4,1) tiles), two u16
 * rows into u32 (bf16 (2,1)), two 4-bit rows into bytes (s4 (2,1)E(4)) --
 * and back, 16 bytes a step by unpacks, which the compiler does not find
 * for the loops above; the loops above finish each row's last few. */
#include <emmintrin.h>

#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

static inline void store_u32_u8_4_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    const __m128i k = _mm_set1_epi8((char)m);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_and_si128(LD(p[0] + i), k), b = _mm_and_si128(LD(p[1] + i), k);
        __m128i c = _mm_and_si128(LD(p[2] + i), k), d = _mm_and_si128(LD(p[3] + i), k);
        __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
        __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
        char *o = w + 4 * i;
        ST(o, _mm_unpacklo_epi16(ab0, cd0));
        ST(o + 16, _mm_unpackhi_epi16(ab0, cd0));
        ST(o + 32, _mm_unpacklo_epi16(ab1, cd1));
        ST(o + 48, _mm_unpackhi_epi16(ab1, cd1));
    }
    if (i == n) return;
    char *rest[4] = {p[0] + i, p[1] + i, p[2] + i, p[3] + i};
    store_u32_u8_4(w + 4 * i, rest, n - i, m);
}

static inline void load_u32_u8_4_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const char *q = w + 4 * i;
        /* words a_i b_i c_i d_i: three rounds of byte unpacks gather each
         * field's 16 bytes */
        __m128i w0 = LD(q), w1 = LD(q + 16), w2 = LD(q + 32), w3 = LD(q + 48);
        __m128i t0 = _mm_unpacklo_epi8(w0, w1), t1 = _mm_unpackhi_epi8(w0, w1);
        __m128i t2 = _mm_unpacklo_epi8(w2, w3), t3 = _mm_unpackhi_epi8(w2, w3);
        __m128i u0 = _mm_unpacklo_epi8(t0, t1), u1 = _mm_unpackhi_epi8(t0, t1);
        __m128i u2 = _mm_unpacklo_epi8(t2, t3), u3 = _mm_unpackhi_epi8(t2, t3);
        __m128i v0 = _mm_unpacklo_epi8(u0, u1), v1 = _mm_unpackhi_epi8(u0, u1);
        __m128i v2 = _mm_unpacklo_epi8(u2, u3), v3 = _mm_unpackhi_epi8(u2, u3);
        ST(p[0] + i, _mm_unpacklo_epi64(v0, v2));
        ST(p[1] + i, _mm_unpackhi_epi64(v0, v2));
        ST(p[2] + i, _mm_unpacklo_epi64(v1, v3));
        ST(p[3] + i, _mm_unpackhi_epi64(v1, v3));
    }
    if (i == n) return;
    char *rest[4] = {p[0] + i, p[1] + i, p[2] + i, p[3] + i};
    load_u32_u8_4(w + 4 * i, rest, n - i, m);
}

static inline void store_u32_u16_2_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    const __m128i k = _mm_set1_epi16((short)m);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i a = _mm_and_si128(LD(p[0] + 2 * i), k), b = _mm_and_si128(LD(p[1] + 2 * i), k);
        ST(w + 4 * i, _mm_unpacklo_epi16(a, b));
        ST(w + 4 * i + 16, _mm_unpackhi_epi16(a, b));
    }
    if (i == n) return;
    char *rest[2] = {p[0] + 2 * i, p[1] + 2 * i};
    store_u32_u16_2(w + 4 * i, rest, n - i, m);
}

static inline void load_u32_u16_2_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i w0 = LD(w + 4 * i), w1 = LD(w + 4 * i + 16);
        /* each half as a signed 32-bit value, so that the saturating pack
         * keeps its 16 bits whatever they are */
        __m128i a0 = _mm_srai_epi32(_mm_slli_epi32(w0, 16), 16);
        __m128i a1 = _mm_srai_epi32(_mm_slli_epi32(w1, 16), 16);
        ST(p[0] + 2 * i, _mm_packs_epi32(a0, a1));
        ST(p[1] + 2 * i, _mm_packs_epi32(_mm_srai_epi32(w0, 16), _mm_srai_epi32(w1, 16)));
    }
    if (i == n) return;
    char *rest[2] = {p[0] + 2 * i, p[1] + 2 * i};
    load_u32_u16_2(w + 4 * i, rest, n - i, m);
}

static inline void store_u8_u8_2_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    const __m128i k = _mm_set1_epi8((char)m);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i lo = _mm_and_si128(LD(p[0] + i), k), hi = _mm_and_si128(LD(p[1] + i), k);
        /* a 16-bit shift: each byte's masked code (4 bits) moves to its
         * high half, the byte below has no bits to carry in */
        ST(w + i, _mm_or_si128(lo, _mm_slli_epi16(hi, 4)));
    }
    if (i == n) return;
    char *rest[2] = {p[0] + i, p[1] + i};
    store_u8_u8_2(w + i, rest, n - i, m);
}

static inline void load_u8_u8_2_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    const __m128i k = _mm_set1_epi8(0x0F);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i v = LD(w + i);
        ST(p[0] + i, _mm_and_si128(v, k));
        ST(p[1] + i, _mm_and_si128(_mm_srli_epi16(v, 4), k));
    }
    if (i == n) return;
    char *rest[2] = {p[0] + i, p[1] + i};
    load_u8_u8_2(w + i, rest, n - i, m);
}

static inline void load_s8_s8_2_sse2(char *w, char *const *p, int64_t n, uint64_t m) {
    /* (x ^ 8) - 8 sign-extends the 4-bit x to a byte */
    const __m128i k = _mm_set1_epi8(0x0F), e = _mm_set1_epi8(8);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i v = LD(w + i);
        __m128i lo = _mm_and_si128(v, k), hi = _mm_and_si128(_mm_srli_epi16(v, 4), k);
        ST(p[0] + i, _mm_sub_epi8(_mm_xor_si128(lo, e), e));
        ST(p[1] + i, _mm_sub_epi8(_mm_xor_si128(hi, e), e));
    }
    if (i == n) return;
    char *rest[2] = {p[0] + i, p[1] + i};
    load_s8_s8_2(w + i, rest, n - i, m);
}
#define FAST(name) name##_sse2
#else
#define FAST(name) name
#endif

/* Rows of a 2-D block: the row function inlined into the loop over rows
 * (rows of a tile are short: 128 words and less), each row ws bytes after
 * the last in the words, ps[s] in field s; the span bytes of each field's
 * row ahead[s] bytes on are prefetched (RW: for writing, when loading). */
typedef void (*Block)(char *w, char *const *p, int64_t n, uint64_t m, int64_t rows,
                      int64_t ws, const int64_t *ps, const int64_t *ahead, int64_t span);

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p, rw) __builtin_prefetch((p), (rw), 3)
#else
#define PREFETCH(p, rw) ((void)(p))
#endif

#define BLOCK(NAME, ROW, G, RW)                                              \
    static void NAME(char *w, char *const *p, int64_t n, uint64_t m,         \
                     int64_t rows, int64_t ws, const int64_t *ps,            \
                     const int64_t *ahead, int64_t span) {                   \
        char *q[G];                                                          \
        for (int s = 0; s < G; s++) q[s] = p[s];                             \
        for (int64_t r = 0; r < rows; r++) {                                 \
            for (int s = 0; s < G; s++)                                      \
                for (int64_t o = 0; o < span; o += 64)                       \
                    PREFETCH(q[s] + ahead[s] + o, RW);                       \
            ROW(w, q, n, m);                                                 \
            w += ws;                                                         \
            for (int s = 0; s < G; s++) q[s] += ps[s];                       \
        }                                                                    \
    }

BLOCK(block_store_u32_u8_4, FAST(store_u32_u8_4), 4, 0)
BLOCK(block_store_u32_u16_2, FAST(store_u32_u16_2), 2, 0)
BLOCK(block_store_u8_u8_2, FAST(store_u8_u8_2), 2, 0)
BLOCK(block_load_u32_u8_4, FAST(load_u32_u8_4), 4, 1)
BLOCK(block_load_u32_u16_2, FAST(load_u32_u16_2), 2, 1)
BLOCK(block_load_u8_u8_2, FAST(load_u8_u8_2), 2, 1)
BLOCK(block_load_s8_s8_2, FAST(load_s8_s8_2), 2, 1)

typedef struct {
    int ndim, g, wsize, csize, bits;
    const int64_t *dims, *wstrides, *pstrides; /* pstrides: g rows of ndim */
} Geometry;

static uint64_t low_bits(int n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

/* The specialised block function for rows of contiguous words and fields,
 * or NULL: stores of fields of bits bits; loads of fields whose low width bits
 * are the code, sign-extended when sign is set (a sign-extension to the
 * code's own width changes nothing). */
static Block fast_block(const Geometry *q, int width, int sign, int storing) {
    int wz = q->wsize, cs = q->csize, g = q->g, bits = q->bits, last = q->ndim - 1;
    if (q->wstrides[last] != wz) return NULL;
    for (int s = 0; s < g; s++)
        if (q->pstrides[s * q->ndim + last] != cs) return NULL;
    int u32_u8_4 = wz == 4 && cs == 1 && g == 4 && bits == 8;
    int u32_u16_2 = wz == 4 && cs == 2 && g == 2 && bits == 16;
    int u8_u8_2 = wz == 1 && cs == 1 && g == 2 && bits == 4;
    if (storing) {
        if (u32_u8_4) return block_store_u32_u8_4;
        if (u32_u16_2) return block_store_u32_u16_2;
        if (u8_u8_2) return block_store_u8_u8_2;
        return NULL;
    }
    if (width != bits) return NULL;
    if (u32_u8_4) return block_load_u32_u8_4;
    if (u32_u16_2) return block_load_u32_u16_2;
    if (u8_u8_2) return sign ? block_load_s8_s8_2 : block_load_u8_u8_2;
    return NULL;
}

/* One row (the last dim) of the interleave, either way, field by field. */
static void row(const Geometry *q, char *w, char *const *p, uint64_t mask, int width,
                int sign, int storing) {
    int64_t n = q->dims[q->ndim - 1];
    int64_t ws = q->wstrides[q->ndim - 1];
    int g = q->g, bits = q->bits, cs = q->csize, wz = q->wsize;
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

/* Every row, in row-major order of the words; the pointers move by the
 * strides (an odometer).  A specialised block function, chosen once, takes
 * the last two dims at a time. */
static int run(const Geometry *q, char *words, char *const *parts, uint64_t mask, int width,
               int sign, int storing) {
    int nd = q->ndim, g = q->g;
    if (nd < 1 || nd > MAX_DIMS || g < 1 || g > MAX_PARTS) return -1;
    if (q->bits < 1 || q->bits * g > 8 * q->wsize || q->bits > 8 * q->csize) return -1;
    for (int d = 0; d < nd; d++)
        if (q->dims[d] <= 0) return 0;
    Block fast = fast_block(q, width, sign, storing);
    int inner = fast && nd >= 2 ? 2 : 1;  /* dims each call takes */
    int64_t rows = inner == 2 ? q->dims[nd - 2] : 1;
    int64_t ws = inner == 2 ? q->wstrides[nd - 2] : 0;
    int64_t ps[MAX_PARTS];
    for (int s = 0; s < g; s++) ps[s] = inner == 2 ? q->pstrides[s * nd + nd - 2] : 0;
    /* The rows of codes the next block reads or writes are fetched while
     * this one runs: the g * rows rows of a tile (32 for s8's (4,1) tiles)
     * are more streams than the hardware's prefetcher follows.  (Measured
     * on s8 T(32,128)(4,1), 256 MiB, one core: about 5% off to_bytes and
     * from_bytes, CPU time.) */
    int64_t ahead[MAX_PARTS];
    for (int s = 0; s < g; s++) ahead[s] = nd >= 3 ? q->pstrides[s * nd + nd - 3] : 0;
    int64_t span = nd >= 3 ? q->dims[nd - 1] * q->csize : 0;
    int64_t index[MAX_DIMS] = {0};
    char *w = words;
    char *p[MAX_PARTS];
    for (int s = 0; s < g; s++) p[s] = parts[s];
    int64_t n = q->dims[nd - 1];
    for (;;) {
        if (fast)
            /* the last block along that dim has no next one to fetch */
            fast(w, p, n, mask, rows, ws, ps, ahead,
                 nd >= 3 && index[nd - 3] + 1 < q->dims[nd - 3] ? span : 0);
        else
            row(q, w, p, mask, width, sign, storing);
        int d = nd - 1 - inner;
        for (; d >= 0; d--) {  /* the pointers stay inside the arrays */
            if (++index[d] < q->dims[d]) {
                w += q->wstrides[d];
                for (int s = 0; s < g; s++) p[s] += q->pstrides[s * nd + d];
                break;
            }
            index[d] = 0;
            w -= (q->dims[d] - 1) * q->wstrides[d];
            for (int s = 0; s < g; s++) p[s] -= (q->dims[d] - 1) * q->pstrides[s * nd + d];
        }
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
