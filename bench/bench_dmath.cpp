// nhsim's CPU-independent elementary functions (nhsim/dmath.hpp, SLEEF; the quantile sketch's
// nhsim/table_log.hpp) against glibc's libm, their peer, per call on arguments spread over the
// ranges the systems, generators and statistics use.
// Run: build/bench/nhsim_bench --benchmark_filter=Math
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <random>

#include "nhsim/dmath.hpp"
#include "nhsim/table_log.hpp"

namespace {

constexpr std::size_t kArguments = 1024;

/// kArguments values uniform in [lo, hi).
std::array<double, kArguments> arguments(double lo, double hi) {
  std::mt19937_64 g(42);
  std::uniform_real_distribution<double> u(lo, hi);
  std::array<double, kArguments> x{};
  for (double& v : x) v = u(g);
  return x;
}

template <class F>
void run(benchmark::State& state, double lo, double hi, F f) {
  const std::array<double, kArguments> x = arguments(lo, hi);
  std::size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f(x[k]));
    k = (k + 1) % kArguments;
  }
}

// clang-format off
void BM_MathSinGlibc(benchmark::State& s) { run(s, -10, 10, [](double x) { return std::sin(x); }); }
void BM_MathSinDmath(benchmark::State& s) { run(s, -10, 10, [](double x) { return nhsim::dmath::sin(x); }); }
void BM_MathCosGlibc(benchmark::State& s) { run(s, -10, 10, [](double x) { return std::cos(x); }); }
void BM_MathCosDmath(benchmark::State& s) { run(s, -10, 10, [](double x) { return nhsim::dmath::cos(x); }); }
void BM_MathSinCosGlibc(benchmark::State& s) { run(s, -10, 10, [](double x) { double a, b; ::sincos(x, &a, &b); return a + b; }); }
void BM_MathSinCosDmath(benchmark::State& s) { run(s, -10, 10, [](double x) { const auto r = nhsim::dmath::sincos(x); return r.sin + r.cos; }); }
void BM_MathExpGlibc(benchmark::State& s) { run(s, -20, 20, [](double x) { return std::exp(x); }); }
void BM_MathExpDmath(benchmark::State& s) { run(s, -20, 20, [](double x) { return nhsim::dmath::exp(x); }); }
void BM_MathLogGlibc(benchmark::State& s) { run(s, 1e-12, 1e3, [](double x) { return std::log(x); }); }
void BM_MathLogDmath(benchmark::State& s) { run(s, 1e-12, 1e3, [](double x) { return nhsim::dmath::log(x); }); }
void BM_MathLogTable(benchmark::State& s) { static const nhsim::TableLog log; run(s, 1e-12, 1e3, [](double x) { return log(x); }); }
void BM_MathAtan2Glibc(benchmark::State& s) { run(s, -10, 10, [](double x) { return std::atan2(x, 0.7); }); }
void BM_MathAtan2Dmath(benchmark::State& s) { run(s, -10, 10, [](double x) { return nhsim::dmath::atan2(x, 0.7); }); }
void BM_MathPowGlibc(benchmark::State& s) { run(s, 0.1, 10, [](double x) { return std::pow(x, 2.5); }); }
void BM_MathPowDmath(benchmark::State& s) { run(s, 0.1, 10, [](double x) { return nhsim::dmath::pow(x, 2.5); }); }
// clang-format on

BENCHMARK(BM_MathSinGlibc);
BENCHMARK(BM_MathSinDmath);
BENCHMARK(BM_MathCosGlibc);
BENCHMARK(BM_MathCosDmath);
BENCHMARK(BM_MathSinCosGlibc);
BENCHMARK(BM_MathSinCosDmath);
BENCHMARK(BM_MathExpGlibc);
BENCHMARK(BM_MathExpDmath);
BENCHMARK(BM_MathLogGlibc);
BENCHMARK(BM_MathLogDmath);
BENCHMARK(BM_MathLogTable);
BENCHMARK(BM_MathAtan2Glibc);
BENCHMARK(BM_MathAtan2Dmath);
BENCHMARK(BM_MathPowGlibc);
BENCHMARK(BM_MathPowDmath);

}  // namespace
