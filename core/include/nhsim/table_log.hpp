// log x in IEEE operations only, for the quantile sketch's bucket index (nhsim/quantiles.hpp),
// which takes one log per value beyond 400 values a cell: as fast as glibc's log and a fifth of
// dmath::log's cost (docs/performance-math.md), and like it the same bits on every CPU (+ - * /
// only, on a table made by dmath::log).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "nhsim/dmath.hpp"

namespace nhsim {

/// log x for finite x > 0 (subnormals included), within 4 ulp or 2^-58 absolute (near x = 1),
/// exactly 0 at x = 1. x = 2^e f with f in [1, 2) and c_j = 1 + j / 128 <= f the left end of
/// f's cell (j = f's top 7 mantissa bits): log x = k log 2 + log(c_j 2^(e-k)) + log1p(r), with
/// r = (f - c_j) / c_j in [0, 2^-7) and k = e, or e + 1 where c_j >= sqrt(2) so that x near 1
/// from below takes k = 0 (no cancellation against log 2). log1p(r) by its Taylor series to r^8
/// (the remainder below r^9 / 9 < 2^-66); log 2 split into a high part that k times is exact
/// and a low part (fdlibm's ln2_hi, ln2_lo).
class TableLog {
 public:
  TableLog() {
    for (int j = 0; j < kCells; ++j) {
      cell_start_[j] = 1.0 + j / static_cast<double>(kCells);
      inverse_[j] = 1.0 / cell_start_[j];
      log_cell_start_[j] = dmath::log(j < kHalved ? cell_start_[j] : cell_start_[j] / 2.0);
    }
  }

  double operator()(double x) const {
    std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    int e = static_cast<int>(bits >> 52) - 1023;
    if (e == -1023) {  // subnormal: scaled into the normal range, exactly
      bits = std::bit_cast<std::uint64_t>(x * 0x1p54);
      e = static_cast<int>(bits >> 52) - 1023 - 54;
    }
    const double f = std::bit_cast<double>((bits & kMantissa) | kOne);
    const auto j = static_cast<int>((bits & kMantissa) >> (52 - 7));
    const double r = (f - cell_start_[j]) * inverse_[j];  // f - c_j is exact
    // Estrin's scheme: independent products, so that calls overlap.
    const double r2 = r * r, r4 = r2 * r2;
    const double log1p_r = r + r2 * ((-1.0 / 2 + r * (1.0 / 3)) + r2 * (-1.0 / 4 + r * (1.0 / 5)) +
                                     r4 * ((-1.0 / 6 + r * (1.0 / 7)) + r2 * (-1.0 / 8)));
    const int k = j < kHalved ? e : e + 1;
    return k * kLn2Hi + (log_cell_start_[j] + (k * kLn2Lo + log1p_r));
  }

 private:
  static constexpr int kCells = 128;
  static constexpr int kHalved = 53;  // c_j >= sqrt(2) from here: x = 2^(e+1) (f / 2)
  static constexpr std::uint64_t kMantissa = 0x000fffffffffffffULL;
  static constexpr std::uint64_t kOne = 0x3ff0000000000000ULL;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76
  std::array<double, kCells> cell_start_{}, inverse_{}, log_cell_start_{};
};

}  // namespace nhsim
