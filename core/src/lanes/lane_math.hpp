// Internal: nhsim::dmath's functions of lanes (declared in nhsim/dmath.hpp), for the lane units
// (method_kernels_<isa>.cpp) only. SLEEF's consistent functions (cinz, no FMA) give the same bits
// at every vector width as the scalar Sleef_cinz_*d1_u10purec that dmath.cpp calls (checked at
// widths 2, 4 and 8 on 1.6e7 arguments for sincos and 2.4e6 each for sin and cos, and on 1e6 each
// for tan, exp, log and pow, no difference; tests/core/lanes_test.cpp checks whole trajectories),
// so each chunk of lanes takes the widest the unit's instruction set runs: 8 (AVX-512F), 4 (AVX) or
// 2 (SSE2). sqrt is IEEE's, correctly rounded at every width.
#pragma once

#include <cmath>
#include <type_traits>

#include "nhsim/dmath.hpp"
#include "nhsim/lane.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#include <sleef.h>
#endif

namespace nhsim::dmath {
namespace lane_math {

#if defined(__AVX512F__)
constexpr bool kUnitAvx512 = true;
#else
constexpr bool kUnitAvx512 = false;
#endif
#if defined(__AVX2__)
constexpr bool kUnitAvx2 = true;
#else
constexpr bool kUnitAvx2 = false;
#endif

/// How many lanes one call takes: the widest the unit's instruction set runs that divides W.
template <int W, class Isa>
constexpr int chunk() {
  static_assert(std::is_same_v<Isa, IsaAvx512> == kUnitAvx512 &&
                    std::is_same_v<Isa, IsaAvx2> == (kUnitAvx2 && !kUnitAvx512),
                "lanes of an instruction set are compiled in that set's unit only");
#if defined(__x86_64__)
  if constexpr (kUnitAvx512 && W % 8 == 0) return 8;
  if constexpr (kUnitAvx2 && W % 4 == 0) return 4;
  return 2;
#else
  return 1;
#endif
}

/// sin and cos of C lanes (chunk<W, Isa>()) of x into s and c.
template <int C, class Isa>
inline void sincos_chunk(const double* x, double* s, double* c) {
#if defined(__x86_64__)
#if defined(__AVX512F__)
  if constexpr (C == 8) {
    const Sleef___m512d_2 r = Sleef_cinz_sincosd8_u10avx512fnofma(_mm512_loadu_pd(x));
    _mm512_storeu_pd(s, r.x);
    _mm512_storeu_pd(c, r.y);
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (C == 4) {
    const Sleef___m256d_2 r = Sleef_cinz_sincosd4_u10avx(_mm256_loadu_pd(x));
    _mm256_storeu_pd(s, r.x);
    _mm256_storeu_pd(c, r.y);
    return;
  }
#endif
  {
    const Sleef___m128d_2 r = Sleef_cinz_sincosd2_u10sse2(_mm_loadu_pd(x));
    _mm_storeu_pd(s, r.x);
    _mm_storeu_pd(c, r.y);
  }
#else
  const SinCos<double> r = dmath::sincos(*x);
  *s = r.sin;
  *c = r.cos;
#endif
}

// f_chunk<C, Isa>(x, y, out): out[i] = f(x[i]) (f(x[i], y[i]) for pow) for C lanes, i < C, by
// Sleef_cinz_<f>d<C>_u10<set>; ARGS is the call's argument list over the loader ld, so that one
// macro serves both arities; SCALAR the fallback off x86-64.
#if defined(__AVX512F__)
#define NHSIM_LANE_CHUNK_512(f, ARGS)                                   \
  if constexpr (C == 8) {                                               \
    const auto ld = [](const double* p) { return _mm512_loadu_pd(p); }; \
    _mm512_storeu_pd(out, Sleef_cinz_##f##d8_u10avx512fnofma ARGS);     \
    return;                                                             \
  }
#else
#define NHSIM_LANE_CHUNK_512(f, ARGS)
#endif
#if defined(__AVX2__)
#define NHSIM_LANE_CHUNK_256(f, ARGS)                                   \
  if constexpr (C == 4) {                                               \
    const auto ld = [](const double* p) { return _mm256_loadu_pd(p); }; \
    _mm256_storeu_pd(out, Sleef_cinz_##f##d4_u10avx ARGS);              \
    return;                                                             \
  }
#else
#define NHSIM_LANE_CHUNK_256(f, ARGS)
#endif
#if defined(__x86_64__)
#define NHSIM_LANE_CHUNK(f, ARGS, SCALAR)                                \
  template <int C, class Isa>                                            \
  inline void f##_chunk(const double* x, const double* y, double* out) { \
    (void)y;                                                             \
    NHSIM_LANE_CHUNK_512(f, ARGS)                                        \
    NHSIM_LANE_CHUNK_256(f, ARGS)                                        \
    const auto ld = [](const double* p) { return _mm_loadu_pd(p); };     \
    _mm_storeu_pd(out, Sleef_cinz_##f##d2_u10sse2 ARGS);                 \
  }
#else
#define NHSIM_LANE_CHUNK(f, ARGS, SCALAR)                                \
  template <int C, class Isa>                                            \
  inline void f##_chunk(const double* x, const double* y, double* out) { \
    (void)y;                                                             \
    *out = SCALAR;                                                       \
  }
#endif

NHSIM_LANE_CHUNK(sin, (ld(x)), dmath::sin(*x))
NHSIM_LANE_CHUNK(cos, (ld(x)), dmath::cos(*x))
NHSIM_LANE_CHUNK(tan, (ld(x)), dmath::tan(*x))
NHSIM_LANE_CHUNK(exp, (ld(x)), dmath::exp(*x))
NHSIM_LANE_CHUNK(log, (ld(x)), dmath::log(*x))
NHSIM_LANE_CHUNK(pow, (ld(x), ld(y)), dmath::pow(*x, *y))

#undef NHSIM_LANE_CHUNK
#undef NHSIM_LANE_CHUNK_256
#undef NHSIM_LANE_CHUNK_512

/// f of the lanes of x (and y), chunk by chunk: Chunk is one of the f_chunk above.
template <int W, class Isa, class Chunk>
inline Lane<W, Isa> map_chunks(Chunk f, const Lane<W, Isa>& x, const Lane<W, Isa>& y) {
  constexpr int kC = lane_math::chunk<W, Isa>();
  double in[W], in2[W], out[W];
  __builtin_memcpy(in, &x.v, sizeof in);
  __builtin_memcpy(in2, &y.v, sizeof in2);
  for (int o = 0; o < W; o += kC) f(in + o, in2 + o, out + o);
  Lane<W, Isa> r;
  __builtin_memcpy(&r.v, out, sizeof out);
  return r;
}

}  // namespace lane_math

template <int W, class Isa>
Lane<W, Isa> sin(const Lane<W, Isa>& x) {
  return lane_math::map_chunks(lane_math::sin_chunk<lane_math::chunk<W, Isa>(), Isa>, x, x);
}
template <int W, class Isa>
Lane<W, Isa> cos(const Lane<W, Isa>& x) {
  return lane_math::map_chunks(lane_math::cos_chunk<lane_math::chunk<W, Isa>(), Isa>, x, x);
}
template <int W, class Isa>
Lane<W, Isa> tan(const Lane<W, Isa>& x) {
  return lane_math::map_chunks(lane_math::tan_chunk<lane_math::chunk<W, Isa>(), Isa>, x, x);
}
template <int W, class Isa>
Lane<W, Isa> exp(const Lane<W, Isa>& x) {
  return lane_math::map_chunks(lane_math::exp_chunk<lane_math::chunk<W, Isa>(), Isa>, x, x);
}
template <int W, class Isa>
Lane<W, Isa> log(const Lane<W, Isa>& x) {
  return lane_math::map_chunks(lane_math::log_chunk<lane_math::chunk<W, Isa>(), Isa>, x, x);
}
template <int W, class Isa>
Lane<W, Isa> pow(const Lane<W, Isa>& x, const Lane<W, Isa>& y) {
  return lane_math::map_chunks(lane_math::pow_chunk<lane_math::chunk<W, Isa>(), Isa>, x, y);
}

template <int W, class Isa>
SinCos<Lane<W, Isa>> sincos(const Lane<W, Isa>& x) {
  constexpr int kC = lane_math::chunk<W, Isa>();
  double in[W], s[W], c[W];
  __builtin_memcpy(in, &x.v, sizeof in);
  for (int o = 0; o < W; o += kC) lane_math::sincos_chunk<kC, Isa>(in + o, s + o, c + o);
  SinCos<Lane<W, Isa>> r;
  __builtin_memcpy(&r.sin.v, s, sizeof s);
  __builtin_memcpy(&r.cos.v, c, sizeof c);
  return r;
}

template <int W, class Isa>
Lane<W, Isa> sqrt(const Lane<W, Isa>& x) {
  double in[W], out[W];
  __builtin_memcpy(in, &x.v, sizeof in);
#if defined(__x86_64__)
  for (int o = 0; o < W; o += 2) _mm_storeu_pd(out + o, _mm_sqrt_pd(_mm_loadu_pd(in + o)));
#else
  for (int l = 0; l < W; ++l) out[l] = std::sqrt(in[l]);
#endif
  Lane<W, Isa> r;
  __builtin_memcpy(&r.v, out, sizeof out);
  return r;
}

}  // namespace nhsim::dmath
