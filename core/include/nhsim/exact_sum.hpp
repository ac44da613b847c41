// Exact, order-independent summation of doubles: a fixed-point long accumulator.
//
// Every finite double is an integer multiple of 2^-1074, so any sum of doubles is K 2^-1074 for
// an integer K. ExactSum holds K exactly, as 32-bit digits kept in int64 limbs (a limb absorbs
// 2^30 additions before carries are propagated), over 2304 bits: every double's range plus
// headroom for 2^62 summands. The state after any sequence of add() and merge() calls is the
// exact sum, so it does not depend on the order or grouping of the values (docs/design.md "Ensemble
// semantics": statistics are associative); value() rounds it once, to nearest even.
//
// Source: U. Kulisch's long accumulator; the digit/limb layout with deferred carries follows
// R. M. Neal, "Fast exact summation using small and large superaccumulators" (arXiv:1505.05571).
// Cost: add() is a handful of integer operations; 584 bytes per sum.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace nhsim {

class ExactSum {
 public:
  static constexpr int kDigitBits = 32;
  static constexpr int kLimbs = 72;
  /// Digit 0 has weight 2^kLowestExponent, the smallest positive double.
  static constexpr int kLowestExponent = -1074;

  /// Adds x. A non-finite x is remembered (value() is then NaN or +-inf, as IEEE addition would
  /// give); -0.0 adds nothing. Inline and without a branch on the sign: the statistics add every
  /// sample's x, x^2 (two parts), x^3 and x^4.
  void add(double x) {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    if (biased == 0x7ff) [[unlikely]] {
      add_non_finite(bits);
      return;
    }
    // x = mantissa 2^(max(biased, 1) - 1075): bit position max(biased, 1) - 1 above 2^-1074.
    const std::uint64_t mantissa =
        (bits & ((std::uint64_t{1} << 52) - 1)) | (static_cast<std::uint64_t>(biased != 0) << 52);
    const int position = biased - static_cast<int>(biased != 0);
    const int l = position / kDigitBits;
    __extension__ typedef unsigned __int128 U128;  // -Wpedantic needs __extension__
    const U128 v = static_cast<U128>(mantissa) << (position % kDigitBits);
    const auto sign = -static_cast<std::int64_t>(bits >> 63);  // 0, or -1 for a negative x
    const auto digit = [sign](std::uint64_t d) {
      return (static_cast<std::int64_t>(d) ^ sign) - sign;
    };
    limb_[l] += digit(static_cast<std::uint64_t>(v) & 0xffffffffu);
    limb_[l + 1] += digit(static_cast<std::uint64_t>(v >> 32) & 0xffffffffu);
    limb_[l + 2] += digit(static_cast<std::uint64_t>(v >> 64));
    if (++pending_ == kMaxPending) [[unlikely]]
      normalize();
  }

  /// add(x) for each x of `xs`: the same sum, from far fewer accumulator updates. Chunks of
  /// kChunk values are split error-free on a common grid (Rump, Ogita and Oishi's extraction,
  /// [Rump2008] §3): with sigma = 2^k >= 2^6 max |x_i|, q_i = fl(sigma + x_i) - sigma
  /// and x_i - q_i are exact, the q_i are multiples of 2^-53 sigma whose sum is exact in
  /// doubles, and three such levels leave no remainder unless the chunk spans more than about
  /// 2^88 in magnitude (a remainder is added value by value). Each level adds one double.
  void add_all(std::span<const double> xs);

  /// Asks the cache for the limbs that adding values near |x| (and sums of up to 2^6 of them)
  /// updates, ahead of add_all(): no effect on the state.
  void prefetch(double x) const {
    const auto biased = static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ff);
    const int l = std::max(biased - 1, 0) / kDigitBits;  // the limb add(x) starts at
    __builtin_prefetch(limb_.data() + std::max(l - 2, 0));
    __builtin_prefetch(limb_.data() + std::min(l + 3, kLimbs - 1));
  }

  /// Values per extraction in add_all(): 2^6, so that 64 q_i of magnitude <= 2^-6 sigma sum to
  /// at most sigma, exactly.
  static constexpr std::size_t kChunk = 64;

  /// *this becomes the sum of both sets of values.
  void merge(const ExactSum& o);

  /// *this becomes its sum minus o's (exactly); the non-finite flags are or-ed, as in merge().
  void merge_negated(const ExactSum& o);

  /// The exact sum rounded to the nearest double (ties to even); NaN if a NaN was added or both
  /// +inf and -inf were, +-inf if an infinity was or the sum overflows.
  double value() const;

  /// No NaN or infinity was added.
  bool finite() const { return flags_ == 0; }

  /// The canonical state, for serialisation and exact arithmetic: K = sum_i digits[i]
  /// 2^(32 i) with digits[i] in [0, 2^32) for i < kLimbs - 1 and the top limb signed (K's sign).
  /// Two sums of the same values have the same canonical digits.
  std::array<std::int64_t, kLimbs> canonical_digits() const;

  /// Flags for non-finite values added: bit 0 NaN, bit 1 +inf, bit 2 -inf.
  std::uint32_t non_finite_flags() const { return flags_; }

  /// The sum with canonical digits `digits` and flags `flags` (the inverse of
  /// canonical_digits() and non_finite_flags()). Throws std::invalid_argument if a digit below
  /// the top is outside [0, 2^32) or flags has bits beyond 0..2.
  static ExactSum from_canonical(const std::array<std::int64_t, kLimbs>& digits,
                                 std::uint32_t flags);

  /// |K| as little-endian 32-bit digits without leading zeros (empty for K = 0), and K < 0.
  void magnitude(std::vector<std::uint32_t>& digits, bool& negative) const;

  /// The sum K = (negative ? -1 : 1) |K| with |K| given by little-endian 32-bit digits (as
  /// magnitude() gives them; leading zeros allowed) and non-finite flags `flags` (the compact
  /// form the partial-result files store). Throws std::invalid_argument if |K| is beyond the
  /// accumulator (more than kLimbs + 1 digits, or at least 2^(32 kLimbs + 30)) or flags has
  /// bits beyond 0..2.
  static ExactSum from_magnitude(const std::vector<std::uint32_t>& digits, bool negative,
                                 std::uint32_t flags);

 private:
  /// Additions a limb absorbs before carries must be propagated (|limb| < 2^62).
  static constexpr std::int32_t kMaxPending = std::int32_t{1} << 30;

  void normalize();
  void add_non_finite(std::uint64_t bits);
  void add_chunk(const double* x, std::size_t n);

  std::array<std::int64_t, kLimbs> limb_{};
  std::int32_t pending_ = 0;  ///< additions since the last carry propagation
  std::uint32_t flags_ = 0;
};

/// The largest |x_i| of x[0, n) as bits (|x| ordered as its bit pattern: NaN above infinity above
/// the finite values); 0 for none or only zeros. Compiled for AVX-512, AVX2 and baseline.
std::uint64_t largest_magnitude_bits(const double* x, std::size_t n);

/// Rounds D 2^exponent to the nearest double (ties to even), D given by little-endian 32-bit
/// digits (any leading zeros). Results below the normal range are rounded a second time by
/// std::ldexp. Used for ExactSum::value() and the exact variance.
double round_to_double(const std::vector<std::uint32_t>& digits, long exponent);

}  // namespace nhsim
