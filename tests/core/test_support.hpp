// Helpers shared by the core test files: initial states, running a stepper to a time, and the
// observed order of accuracy by step halving. Steppers come from the library's factory
// (nhsim/stepper_factory.hpp): a test compiles no integrator it does not test directly.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "nhsim/initial_conditions.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"

namespace nhsim::test {

/// x in scientific notation with 3 digits after the point, for failure messages.
inline std::string sci(double x) {
  std::ostringstream os;
  os << std::scientific;
  os.precision(3);
  os << x;
  return os.str();
}

/// A canonical initial state (q, p).
struct Ic {
  Eigen::VectorXd q, p;
};

/// State i of the energy-shell generator on the chaotic quartic system, n = 3 (seed 20261122).
inline Ic chaotic_shell_state(std::int64_t i, double energy = 3.06) {
  ModelImpl<ChaoticQuartic<3>> model(ChaoticQuartic<3>(3));
  EnergyShellGenerator g;
  g.energy = energy;
  g.seed = 20261122;
  g.count = 1;
  Ic ic;
  std::string reason;
  EXPECT_TRUE(energy_shell_state(model, g, i, ic.q, ic.p, reason)) << reason;
  return ic;
}

/// Stepper of integrator `id` with step h on `sys` (a test failure if it does not apply).
template <class S>
std::unique_ptr<Stepper> make_stepper(const S& sys, const std::string& id, double h) {
  IntegratorChoice c;
  c.integrator = id;
  c.h = h;
  auto st = make_stepper_for(sys, c);
  EXPECT_NE(st, nullptr) << id;
  return st;
}

/// (q, p) at time t (a multiple of h) from `ic`, stacked into one vector of length 2 nq.
template <class S>
Eigen::VectorXd state_at(const S& sys, const std::string& id, double h, double t, const Ic& ic) {
  auto st = make_stepper(sys, id, h);
  st->set_state(ic.q, ic.p);
  const auto n = static_cast<std::int64_t>(std::llround(t / h));
  const AdvanceResult r = st->advance(n);
  EXPECT_EQ(r.status, StepStatus::kOk) << id;
  EXPECT_EQ(r.steps_done, n);
  const int nq = sys.nq();
  Eigen::VectorXd q(nq), p(nq), out(2 * nq);
  st->get_state(q, p);
  out << q, p;
  return out;
}

/// Least-squares slope of y against x (same lengths, at least two distinct x).
inline double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    mx += x[k] / n;
    my += y[k] / n;
  }
  double sxy = 0, sxx = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) * (x[k] - mx);
  }
  return sxy / sxx;
}

/// Observed order at t = 10: slope of log(error) against log(h) for h0, h0/2, h0/4, errors in
/// the max-norm of (q, p) against `ref`. A test failure if an error is already at round-off.
template <class S>
double observed_order(const S& sys, const std::string& id, double h0, const Ic& ic,
                      const Eigen::VectorXd& ref) {
  std::vector<double> lh, le;
  for (int k = 0; k < 3; ++k) {
    const double h = h0 / std::pow(2.0, k);
    const double err = (state_at(sys, id, h, 10.0, ic) - ref).template lpNorm<Eigen::Infinity>();
    EXPECT_GT(err, 1e-11) << id << ": error at round-off, order not measurable";
    lh.push_back(std::log(h));
    le.push_back(std::log(err));
  }
  return slope(lh, le);
}

}  // namespace nhsim::test
