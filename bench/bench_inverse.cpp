// The Newton iteration's inverse Jacobian (nhsim/newton.hpp): Eigen's PartialPivLU and its
// inverse() against inverse_in_eigen_order, which gives the same bits, for the sizes the implicit
// methods of the chaotic quartic system use (2: spark2, 8: i_dla, 13: gonzalez and avf).
// Run: build/bench/nhsim_bench --benchmark_filter=Inverse
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <random>

#include "nhsim/eigen_order_inverse.hpp"

namespace {

/// The identity plus a small coupling, as the Newton Jacobians are.
template <int N>
Eigen::Matrix<double, N, N> jacobian_like() {
  std::mt19937_64 g(N);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  Eigen::Matrix<double, N, N> m = Eigen::Matrix<double, N, N>::Identity();
  for (int e = 0; e < N * N; ++e) m.data()[e] += u(g);
  return m;
}

template <int N>
void BM_EigenInverse(benchmark::State& state) {
  const Eigen::Matrix<double, N, N> jac = jacobian_like<N>();
  Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> lu;
  Eigen::Matrix<double, N, N> inv;
  for (auto _ : state) {
    lu.compute(jac);
    inv = lu.inverse();
    benchmark::DoNotOptimize(inv.data());
    benchmark::ClobberMemory();
  }
}

template <int N>
void BM_EigenOrderInverse(benchmark::State& state) {
  const Eigen::Matrix<double, N, N> jac = jacobian_like<N>();
  Eigen::Matrix<double, N, N> a, inv;
  for (auto _ : state) {
    a = jac;
    nhsim::inverse_in_eigen_order<nhsim::ScalarElements, N>(a.data(), inv.data());
    benchmark::DoNotOptimize(inv.data());
    benchmark::ClobberMemory();
  }
}

BENCHMARK_TEMPLATE(BM_EigenInverse, 2);
BENCHMARK_TEMPLATE(BM_EigenOrderInverse, 2);
BENCHMARK_TEMPLATE(BM_EigenInverse, 8);
BENCHMARK_TEMPLATE(BM_EigenOrderInverse, 8);
BENCHMARK_TEMPLATE(BM_EigenInverse, 13);
BENCHMARK_TEMPLATE(BM_EigenOrderInverse, 13);

}  // namespace
