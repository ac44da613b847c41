// The long accumulator of exact_sum.hpp.
#include "nhsim/exact_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "target_clones.hpp"

namespace nhsim {
namespace {

__extension__ typedef unsigned __int128 U128;  // GCC and Clang; -Wpedantic needs __extension__

constexpr std::int64_t kBase = std::int64_t{1} << ExactSum::kDigitBits;

/// floor(v / 2^32) and the remainder in [0, 2^32).
inline std::int64_t split_carry(std::int64_t& v) {
  const std::int64_t carry = v >> ExactSum::kDigitBits;  // arithmetic shift: floor division
  v -= carry * kBase;
  return carry;
}

/// add_all(): 64 = 2^kHeadroomBits values per chunk, three extraction levels, eight partial sums
/// (any grouping of the q_i is exact; eight let the compiler use vector registers).
constexpr int kHeadroomBits = 6;
static_assert(ExactSum::kChunk == std::size_t{1} << kHeadroomBits);
constexpr int kLevels = 3;
constexpr std::size_t kPartials = 8;

/// The extraction levels of add_all() over r[0, padded) (padded a multiple of kPartials, at most
/// ExactSum::kChunk values, |r_i| < 2^(exponent - kHeadroomBits)): level_sum[k] gets the exact
/// sum of level k's q_i and r the remainders. Returns the levels done; `remainder` says whether
/// some r_i is left non-zero. Compiled for several instruction sets (the sums are exact, so each
/// gives the same bits); the wider ones take eight values an instruction.
NHSIM_TARGET_CLONES int extract(double* r, std::size_t padded, int exponent, double* level_sum,
                                bool& remainder) {
  remainder = true;
  for (int level = 0; level < kLevels; ++level) {
    if (exponent < ExactSum::kLowestExponent) return level;  // no sigma: r_i = 0 already
    const double sigma = std::ldexp(1.0, exponent);
    double partial[kPartials] = {};
    std::uint64_t left = 0;
    for (std::size_t i = 0; i < padded; i += kPartials) {
      for (std::size_t k = 0; k < kPartials; ++k) {
        const double q =
            (sigma + r[i + k]) - sigma;  // exact: sigma + r_i within [sigma/2, 2 sigma]
        r[i + k] -= q;                   // exact: the rounding error of sigma + r_i
        partial[k] += q;                 // exact: multiples of 2^-53 sigma, at most sigma in all
        left |= std::bit_cast<std::uint64_t>(r[i + k]) << 1;  // non-zero (ignoring -0.0)
      }
    }
    double sum = 0.0;
    for (double p : partial) sum += p;
    level_sum[level] = sum;
    remainder = left != 0;
    if (!remainder) return level + 1;
    exponent -= 53 - kHeadroomBits;  // |r_i| <= 2^-53 sigma = 2^-6 sigma'
  }
  return kLevels;
}

NHSIM_TARGET_CLONES std::uint64_t largest_magnitude_bits_of(const double* x, std::size_t n) {
  std::uint64_t top = 0;
  for (std::size_t i = 0; i < n; ++i)
    top = std::max(top, std::bit_cast<std::uint64_t>(x[i]) & ~(std::uint64_t{1} << 63));
  return top;
}

}  // namespace

std::uint64_t largest_magnitude_bits(const double* x, std::size_t n) {
  return largest_magnitude_bits_of(x, n);
}

void ExactSum::add_all(std::span<const double> xs) {
  for (std::size_t i = 0; i < xs.size(); i += kChunk)
    add_chunk(xs.data() + i, std::min(kChunk, xs.size() - i));
}

void ExactSum::add_chunk(const double* x, std::size_t n) {
  const std::uint64_t top = largest_magnitude_bits(x, n);
  if (top == 0) return;  // only zeros
  const auto biased = static_cast<int>(top >> 52);
  // A non-finite value, or a sigma beyond the doubles: one at a time.
  if (biased + kHeadroomBits + 1 >= 0x7ff) {
    for (std::size_t i = 0; i < n; ++i) add(x[i]);
    return;
  }
  // |x_i| < 2^(e + 1) = 2^-6 sigma with e the largest exponent (-1022 for subnormals).
  int exponent = std::max(biased, 1) - 1023 + 1 + kHeadroomBits;
  double r[kChunk];
  const std::size_t padded = (n + kPartials - 1) / kPartials * kPartials;
  std::copy(x, x + n, r);
  std::fill(r + n, r + padded, 0.0);
  double level_sum[kLevels];
  bool remainder = false;
  const int levels = extract(r, padded, exponent, level_sum, remainder);
  for (int level = 0; level < levels; ++level) add(level_sum[level]);
  if (!remainder) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (r[i] != 0.0) add(r[i]);
  }
}

void ExactSum::add_non_finite(std::uint64_t bits) {
  const bool nan = (bits & ((std::uint64_t{1} << 52) - 1)) != 0;
  flags_ |= nan ? 1u : ((bits >> 63) != 0 ? 4u : 2u);
}

void ExactSum::normalize() {
  for (int i = 0; i + 1 < kLimbs; ++i) limb_[i + 1] += split_carry(limb_[i]);
  pending_ = 0;
}

void ExactSum::merge(const ExactSum& o) {
  ExactSum other = o;
  other.normalize();
  normalize();
  for (int i = 0; i < kLimbs; ++i) limb_[i] += other.limb_[i];
  normalize();
  flags_ |= o.flags_;
}

void ExactSum::merge_negated(const ExactSum& o) {
  ExactSum other = o;
  other.normalize();
  normalize();
  for (int i = 0; i < kLimbs; ++i) limb_[i] -= other.limb_[i];
  normalize();
  flags_ |= o.flags_;
}

std::array<std::int64_t, ExactSum::kLimbs> ExactSum::canonical_digits() const {
  ExactSum c = *this;
  c.normalize();
  return c.limb_;
}

ExactSum ExactSum::from_canonical(const std::array<std::int64_t, kLimbs>& digits,
                                  std::uint32_t flags) {
  for (int i = 0; i + 1 < kLimbs; ++i) {
    if (digits[i] < 0 || digits[i] >= kBase) {
      throw std::invalid_argument("exact sum: digit outside [0, 2^32)");
    }
  }
  if (flags > 7) throw std::invalid_argument("exact sum: unknown non-finite flags");
  ExactSum s;
  s.limb_ = digits;
  s.flags_ = flags;
  return s;
}

ExactSum ExactSum::from_magnitude(const std::vector<std::uint32_t>& digits, bool negative,
                                  std::uint32_t flags) {
  const std::size_t n = digits.size();
  if (n > kLimbs + 1 || (n == kLimbs + 1 && digits[kLimbs] >= (1u << 30))) {
    throw std::invalid_argument("exact sum: magnitude beyond the accumulator's range");
  }
  if (flags > 7) throw std::invalid_argument("exact sum: unknown non-finite flags");
  ExactSum s;
  for (std::size_t i = 0; i < n && i + 1 < kLimbs; ++i) s.limb_[i] = digits[i];
  // The top limb holds digits kLimbs - 1 and kLimbs: below 2^62, as after normalize().
  if (n >= kLimbs) s.limb_[kLimbs - 1] = digits[kLimbs - 1];
  if (n == kLimbs + 1) s.limb_[kLimbs - 1] += static_cast<std::int64_t>(digits[kLimbs]) << 32;
  if (negative) {
    for (auto& limb : s.limb_) limb = -limb;
  }
  s.normalize();
  s.flags_ = flags;
  return s;
}

void ExactSum::magnitude(std::vector<std::uint32_t>& digits, bool& negative) const {
  const std::array<std::int64_t, kLimbs> c = canonical_digits();
  negative = c[kLimbs - 1] < 0;
  digits.assign(kLimbs + 1, 0);
  // Two's complement over kLimbs + 1 digits when negative: |K| = -K.
  std::int64_t borrow = 0;
  for (int i = 0; i < kLimbs; ++i) {
    std::int64_t d = negative ? -c[i] - borrow : c[i];
    if (i + 1 < kLimbs) {
      borrow = 0;
      if (d < 0) {
        d += kBase;
        borrow = 1;
      }
      digits[i] = static_cast<std::uint32_t>(d);
    } else {  // top limb: its magnitude is below 2^62
      digits[i] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(d) & 0xffffffffu);
      digits[i + 1] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(d) >> 32);
    }
  }
  while (!digits.empty() && digits.back() == 0) digits.pop_back();
}

double ExactSum::value() const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if ((flags_ & 1u) != 0 || flags_ == 6u) return std::numeric_limits<double>::quiet_NaN();
  if (flags_ == 2u) return kInf;
  if (flags_ == 4u) return -kInf;
  std::vector<std::uint32_t> digits;
  bool negative = false;
  magnitude(digits, negative);
  const double m = round_to_double(digits, kLowestExponent);
  return negative ? -m : m;
}

double round_to_double(const std::vector<std::uint32_t>& digits, long exponent) {
  int top = static_cast<int>(digits.size()) - 1;
  while (top >= 0 && digits[top] == 0) --top;
  if (top < 0) return 0.0;
  // The top three digits (at most 96 bits) and a sticky bit for everything below them.
  U128 head = 0;
  int used = 0;
  for (int i = top; i >= 0 && used < 3; --i, ++used) head = (head << 32) | digits[i];
  bool sticky = false;
  for (int i = top - used; i >= 0 && !sticky; --i) sticky = digits[i] != 0;
  const long head_exponent = exponent + 32L * (top - used + 1);
  const auto hi = static_cast<std::uint64_t>(head >> 64);
  const auto lo = static_cast<std::uint64_t>(head);
  const int length = hi != 0 ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo);
  if (length <= 53)
    return std::ldexp(static_cast<double>(static_cast<std::uint64_t>(head)),
                      static_cast<int>(head_exponent));
  const int shift = length - 53;
  auto mantissa = static_cast<std::uint64_t>(head >> shift);
  const U128 rest = head & ((static_cast<U128>(1) << shift) - 1);
  const U128 half = static_cast<U128>(1) << (shift - 1);
  if (rest > half || (rest == half && (sticky || (mantissa & 1u) != 0))) ++mantissa;
  const long e = head_exponent + shift;
  if (e > std::numeric_limits<int>::max()) return std::numeric_limits<double>::infinity();
  if (e < std::numeric_limits<int>::min()) return 0.0;
  return std::ldexp(static_cast<double>(mantissa), static_cast<int>(e));
}

}  // namespace nhsim
