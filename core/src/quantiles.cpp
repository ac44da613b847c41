// The quantile sketch of quantiles.hpp: exact values, then DDSketch bucket counts.
#include "nhsim/quantiles.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "nhsim/dmath.hpp"
#include "nhsim/table_log.hpp"

namespace nhsim {
namespace {

constexpr double kGamma =
    (1.0 + QuantileSketch::kRelativeAccuracy) / (1.0 - QuantileSketch::kRelativeAccuracy);
const double kLogGamma = dmath::log(kGamma);
const TableLog kLog;

/// The bucket of |x| > 0: ceil(log_gamma |x|), so that gamma^(i-1) < |x| <= gamma^i (up to the
/// rounding of the log at the bucket's edges).
int bucket_index(double magnitude) {
  // ceil() in integers (|y| < 2^16): the truncation, plus one above a positive y's floor.
  const double y = kLog(magnitude) / kLogGamma;
  const auto t = static_cast<int>(y);
  return t + static_cast<int>(static_cast<double>(t) < y);
}

/// The value reported for bucket i: within relative error alpha of every magnitude in it.
double bucket_value(int i) { return 2.0 * dmath::exp(i * kLogGamma) / (kGamma + 1.0); }

/// Adds `count` at bucket `index`; buckets more than kMaxBuckets - 1 below the highest index
/// ever added are counted in the lowest kept bucket. The result depends only on the multiset of
/// (index, count) added: the kept range is [max(lowest index, highest - kMaxBuckets + 1),
/// highest], and the first and last kept counts are non-zero.
void store_add(QuantileSketch::Store& s, int index, std::int64_t count) {
  if (s.counts.empty()) {
    s.offset = s.highest = index;
    s.counts.assign(1, count);
    return;
  }
  s.highest = std::max(s.highest, index);
  const int floor = s.highest - QuantileSketch::kMaxBuckets + 1;
  index = std::max(index, floor);
  if (s.offset < floor) {  // collapse the buckets below the floor into it
    const auto below = std::min(static_cast<std::size_t>(floor - s.offset), s.counts.size());
    std::int64_t collapsed = 0;
    for (std::size_t j = 0; j < below; ++j) collapsed += s.counts[j];
    s.counts.erase(s.counts.begin(), s.counts.begin() + static_cast<std::ptrdiff_t>(below));
    s.offset = floor;  // counts[0] is now bucket `floor` (or nothing was above it)
    if (s.counts.empty()) s.counts.assign(1, 0);
    s.counts[0] += collapsed;
  }
  if (index < s.offset) {
    s.counts.insert(s.counts.begin(), static_cast<std::size_t>(s.offset - index), 0);
    s.offset = index;
  }
  const auto at = static_cast<std::size_t>(index - s.offset);
  if (at >= s.counts.size()) s.counts.resize(at + 1, 0);
  s.counts[at] += count;
}

/// Moves the k-th smallest of v to v[k], the smaller ones before it and the others after
/// (as std::nth_element; requires k < v.size()). Quickselect with a median-of-three pivot and
/// a branchless Lomuto partition, about 3x faster than libstdc++'s nth_element on the
/// ensemble's cells of up to 400 values; after 2 log2(n) + 4 rounds (many equal values, or an
/// adversarial order) it hands the rest to std::nth_element. v holds no NaN, so the k-th value
/// is the same whichever algorithm finds it.
void select_nth(std::span<double> v, std::size_t k) {
  std::size_t lo = 0;
  std::size_t hi = v.size();
  int rounds_left = 2 * static_cast<int>(std::bit_width(hi)) + 4;
  while (hi - lo > 12) {
    if (--rounds_left < 0) {
      std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(lo),
                       v.begin() + static_cast<std::ptrdiff_t>(k),
                       v.begin() + static_cast<std::ptrdiff_t>(hi));
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    const double median =
        std::max(std::min(v[lo], v[mid]), std::min(std::max(v[lo], v[mid]), v[hi - 1]));
    if (median == v[mid]) {
      std::swap(v[lo], v[mid]);
    } else if (median == v[hi - 1]) {
      std::swap(v[lo], v[hi - 1]);
    }
    const double pivot = v[lo];
    std::size_t below = lo + 1;  // v[lo + 1, below) < pivot <= v[below, i)
    for (std::size_t i = lo + 1; i < hi; ++i) {
      const double x = v[i];
      v[i] = v[below];
      v[below] = x;
      below += x < pivot ? 1 : 0;
    }
    const std::size_t m = below - 1;  // the pivot's rank
    v[lo] = v[m];
    v[m] = pivot;
    if (k == m) return;
    if (k < m) {
      hi = m;
    } else {
      lo = m + 1;
    }
  }
  for (std::size_t i = lo + 1; i < hi; ++i) {  // insertion sort of the last few
    const double x = v[i];
    std::size_t j = i;
    for (; j > lo && x < v[j - 1]; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

void check_probability(double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("quantile: p must be in [0, 1]");
}

/// order = 0 .. keys.size() - 1 sorted by ascending key (insertion sort: a few keys).
template <class Key>
void ascending_order(std::span<const Key> keys, std::vector<std::size_t>& order) {
  order.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::size_t j = i;
    for (; j > 0 && keys[i] < keys[order[j - 1]]; --j) order[j] = order[j - 1];
    order[j] = i;
  }
}

/// The k-th smallest values of v for ranks asked in ascending order: each selection searches
/// only above the previous one's rank (v[0, placed) are the `placed` smallest values).
struct AscendingSelection {
  std::span<double> v;
  std::size_t placed = 0;
  double at(std::size_t k) {
    if (k >= placed) {  // else k is a previous rank's, already in place
      select_nth(v.subspan(placed), k - placed);
      placed = k + 1;
    }
    return v[k];
  }
};

}  // namespace

void QuantileSketch::add(double x) {
  ++n_;
  if (!std::isfinite(x)) {
    ++non_finite_;
  } else {
    if (x == 0.0) x = 0.0;  // -0.0 -> +0.0
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
    if (bucketed_) {
      add_to_buckets(x, 1);
    } else {
      values_.push_back(x);
    }
  }
  if (!bucketed_ && static_cast<std::size_t>(n_) > kExactCapacity) bucket_all_values();
}

void QuantileSketch::add_all(std::span<const double> xs) {
  if (!bucketed_) {  // room for the values that stay exact, grown geometrically as by insert()
    const std::size_t exact = std::min(xs.size(), kExactCapacity - static_cast<std::size_t>(n_));
    const std::size_t needed = values_.size() + exact;
    if (needed > values_.capacity())
      values_.reserve(std::min(std::max(2 * values_.capacity(), needed), kExactCapacity));
  }
  std::size_t i = 0;
  for (; i < xs.size() && !bucketed_; ++i) add(xs[i]);  // exact regime (and the switch)
  // Bucketed: a batch's bucket indices first (independent logarithms), then its counts.
  constexpr std::size_t kBatch = 64;
  int index[kBatch];
  bool negative[kBatch];
  while (i < xs.size()) {
    const std::size_t end = std::min(xs.size(), i + kBatch);
    std::size_t k = 0;
    for (; i < end; ++i) {
      const double x = xs[i];
      ++n_;
      if (!std::isfinite(x)) {
        ++non_finite_;
        continue;
      }
      if (x == 0.0) {
        min_ = std::min(min_, 0.0);
        max_ = std::max(max_, 0.0);
        ++zeros_;
        continue;
      }
      min_ = std::min(min_, x);
      max_ = std::max(max_, x);
      negative[k] = x < 0.0;
      index[k] = bucket_index(std::abs(x));
      // The count's cache line, fetched while the batch's other logarithms are computed.
      const Store& store = negative[k] ? neg_ : pos_;
      const auto at = static_cast<std::size_t>(index[k] - store.offset);
      if (at < store.counts.size()) __builtin_prefetch(store.counts.data() + at, 1);
      ++k;
    }
    for (std::size_t j = 0; j < k; ++j) {
      Store& store = negative[j] ? neg_ : pos_;
      // Inside the kept range [offset, highest] and the counts: a plain increment, as
      // store_add() would do it (no collapse, no growth).
      const auto at = static_cast<std::size_t>(index[j] - store.offset);
      if (index[j] >= store.offset && index[j] <= store.highest && at < store.counts.size()) {
        ++store.counts[at];
      } else {
        store_add(store, index[j], 1);
      }
    }
  }
}

void QuantileSketch::reserve(std::size_t n) {
  if (!bucketed_ && static_cast<std::size_t>(n_) + n <= kExactCapacity)
    values_.reserve(values_.size() + n);
}

void QuantileSketch::add_to_buckets(double x, std::int64_t count) {
  if (x > 0.0) {
    store_add(pos_, bucket_index(x), count);
  } else if (x < 0.0) {
    store_add(neg_, bucket_index(-x), count);
  } else {
    zeros_ += count;
  }
}

void QuantileSketch::bucket_all_values() {
  bucketed_ = true;
  for (double v : values_) add_to_buckets(v, 1);
  values_.clear();
  values_.shrink_to_fit();
}

void QuantileSketch::merge(const QuantileSketch& o) {
  if (&o == this) {
    const QuantileSketch copy = o;
    merge(copy);
    return;
  }
  n_ += o.n_;
  non_finite_ += o.non_finite_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  if (!bucketed_ && static_cast<std::size_t>(n_) > kExactCapacity) bucket_all_values();
  if (!bucketed_) {  // both exact and still small
    values_.insert(values_.end(), o.values_.begin(), o.values_.end());
    return;
  }
  for (double v : o.values_) add_to_buckets(v, 1);
  for (const Store* s : {&o.pos_, &o.neg_}) {
    Store& into = s == &o.pos_ ? pos_ : neg_;
    for (std::size_t k = 0; k < s->counts.size(); ++k) {
      if (s->counts[k] != 0) store_add(into, s->offset + static_cast<int>(k), s->counts[k]);
    }
  }
  zeros_ += o.zeros_;
}

double QuantileSketch::quantile(double p) const {
  double out = 0.0;
  quantiles(std::span<const double>(&p, 1), std::span<double>(&out, 1));
  return out;
}

void QuantileSketch::quantiles(std::span<const double> p, std::span<double> out) const {
  if (out.size() != p.size()) throw std::invalid_argument("quantiles: out.size() != p.size()");
  for (double pi : p) check_probability(pi);
  if (n_ == 0 || non_finite_ > 0) {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (bucketed_) {
    for (std::size_t i = 0; i < p.size(); ++i) out[i] = bucketed_quantile(p[i]);
    return;
  }
  // Exact regime: type-7 order statistics by selection, the probabilities in ascending order.
  thread_local std::vector<double> v;
  thread_local std::vector<std::size_t> order;
  v = values_;
  ascending_order(p, order);
  AscendingSelection selection{v};
  const double last = static_cast<double>(v.size()) - 1.0;
  for (std::size_t i : order) {
    const double h = p[i] * last;
    const auto k = static_cast<std::size_t>(std::floor(h));
    const double a = selection.at(k);
    if (h == static_cast<double>(k)) {  // includes p = 1 (k = n - 1)
      out[i] = a;
      continue;
    }
    const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(k) + 1, v.end());
    out[i] = a + (h - static_cast<double>(k)) / 1.0 * (b - a);
  }
}

void QuantileSketch::order_statistics(std::span<const std::int64_t> ranks,
                                      std::span<double> out) const {
  if (out.size() != ranks.size()) {
    throw std::invalid_argument("order_statistics: out.size() != ranks.size()");
  }
  for (std::int64_t r : ranks) {
    if (r < 0 || r >= n_) throw std::invalid_argument("order_statistics: rank out of range");
  }
  if (n_ == 0 || non_finite_ > 0) {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (bucketed_) {
    for (std::size_t i = 0; i < ranks.size(); ++i) out[i] = bucketed_order_statistic(ranks[i]);
    return;
  }
  // As quantiles(): the ranks in ascending order, each selection above the previous one.
  thread_local std::vector<double> v;
  thread_local std::vector<std::size_t> order;
  v = values_;
  ascending_order(ranks, order);
  AscendingSelection selection{v};
  for (std::size_t i : order) out[i] = selection.at(static_cast<std::size_t>(ranks[i]));
}

double QuantileSketch::bucketed_quantile(double p) const {
  if (p == 0.0) return min_;
  if (p == 1.0) return max_;
  return bucketed_order_statistic(
      static_cast<std::int64_t>(std::floor(p * static_cast<double>(n_ - 1))));
}

double QuantileSketch::bucketed_order_statistic(std::int64_t j) const {
  // The bucket of x_j: the first whose cumulative count exceeds j.
  std::int64_t cumulative = 0;
  double value = max_;
  bool found = false;
  for (std::size_t k = neg_.counts.size(); k-- > 0 && !found;) {  // most negative first
    cumulative += neg_.counts[k];
    if (cumulative > j) {
      value = -bucket_value(neg_.offset + static_cast<int>(k));
      found = true;
    }
  }
  if (!found) {
    cumulative += zeros_;
    if (cumulative > j) {
      value = 0.0;
      found = true;
    }
  }
  for (std::size_t k = 0; k < pos_.counts.size() && !found; ++k) {
    cumulative += pos_.counts[k];
    if (cumulative > j) {
      value = bucket_value(pos_.offset + static_cast<int>(k));
      found = true;
    }
  }
  return std::clamp(value, min_, max_);
}

QuantileRanks quantile_interval_ranks(std::int64_t n, double p) {
  constexpr double kTail = 0.025;
  QuantileRanks r{-1, n};
  if (n <= 0) return r;
  if (n > static_cast<std::int64_t>(QuantileSketch::kExactCapacity)) {
    // X ~ N(n p, n p (1 - p)): P(X <= lower) <= 2.5 % for lower <= n p - 1.96 sigma - 1/2.
    const double mu = static_cast<double>(n) * p;
    const double half_width = 1.959963984540054 * std::sqrt(mu * (1.0 - p));
    r.lower = static_cast<std::int64_t>(std::floor(mu - half_width - 0.5));
    r.upper = static_cast<std::int64_t>(std::ceil(mu + half_width + 0.5)) - 1;
    r.lower = std::max<std::int64_t>(r.lower, -1);
    r.upper = std::min(r.upper, n);
    return r;
  }
  if (p > 0.5) {  // by reflection x -> -x: the (1 - p)-quantile's ranks, mirrored
    const QuantileRanks m = quantile_interval_ranks(n, 1.0 - p);
    return {n - 1 - m.upper, n - 1 - m.lower};
  }
  // P(X = k) by the recurrence pmf(k + 1) = pmf(k) (n - k) p / ((k + 1) (1 - p)), from
  // pmf(0) = (1 - p)^n >= 0.5^400 ~ 4e-121 (p <= 1/2 here: no underflow). cdf[k] = P(X <= k).
  std::vector<double> cdf(static_cast<std::size_t>(n) + 1);
  double pmf = 1.0;
  for (std::int64_t k = 0; k < n; ++k) pmf *= 1.0 - p;
  double sum = 0.0;
  for (std::int64_t k = 0; k <= n; ++k) {
    sum += pmf;
    cdf[static_cast<std::size_t>(k)] = sum;
    pmf *= static_cast<double>(n - k) * p / (static_cast<double>(k + 1) * (1.0 - p));
  }
  // lower: the largest rank with P(X <= lower) <= 2.5 %; upper: the smallest with
  // P(X >= upper + 1) = 1 - P(X <= upper) <= 2.5 %.
  for (std::int64_t k = 0; k < n && cdf[static_cast<std::size_t>(k)] <= kTail; ++k) r.lower = k;
  for (std::int64_t k = n - 1; k >= 0 && 1.0 - cdf[static_cast<std::size_t>(k)] <= kTail; --k) {
    r.upper = k;
  }
  return r;
}

std::vector<double> QuantileSketch::exact_values() const {
  std::vector<double> v = values_;
  std::sort(v.begin(), v.end());
  return v;
}

QuantileSketch QuantileSketch::from_state(std::int64_t n, std::vector<double> exact_values,
                                          bool bucketed, Store positive, Store negative,
                                          std::int64_t zeros, std::int64_t non_finite, double min,
                                          double max) {
  auto bad = [](const char* what) {
    throw std::invalid_argument(std::string("quantile sketch state: ") + what);
  };
  if (n < 0 || zeros < 0 || non_finite < 0) bad("negative count");
  std::int64_t total = zeros + non_finite + static_cast<std::int64_t>(exact_values.size());
  for (const Store* s : {&positive, &negative}) {
    if (s->counts.size() > static_cast<std::size_t>(kMaxBuckets)) bad("store wider than 2048");
    for (std::int64_t c : s->counts) {
      if (c < 0) bad("negative bucket count");
      total += c;
    }
  }
  if (total != n) bad("counts do not add up to n");
  if (bucketed != (static_cast<std::size_t>(n) > kExactCapacity)) bad("regime does not match n");
  if (!bucketed && (zeros != 0 || !positive.counts.empty() || !negative.counts.empty())) {
    bad("buckets in the exact regime");
  }
  if (bucketed && !exact_values.empty()) bad("exact values in the bucketed regime");
  for (double v : exact_values) {
    if (!std::isfinite(v)) bad("non-finite exact value");
  }
  QuantileSketch s;
  s.n_ = n;
  s.non_finite_ = non_finite;
  s.bucketed_ = bucketed;
  s.values_ = std::move(exact_values);
  s.pos_ = std::move(positive);
  s.neg_ = std::move(negative);
  s.zeros_ = zeros;
  s.min_ = min;
  s.max_ = max;
  return s;
}

}  // namespace nhsim
