// [Gebhardt2020] §6 on the director bodies, shared by nontwisting_body_test.cpp and em_test.cpp:
// the paper's loads and cases 1-3, and a run of an integrator (by id, through the library's stepper
// factory) that records the invariants K, Pi1, Pi2, Pi3 and |g(q)|.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/director_body.hpp"

namespace nhsim::test {

using Body = NontwistingBody;
using VecQ = Body::VecQ;

/// Load of eq. (115)/(118): direction `scale` * (-2472.5, -1075, 0), profile eq. (116).
inline LoadSpec paper_load(double scale) {
  LoadSpec l;
  l.direction = {-2472.5 * scale, -1075.0 * scale, 0.0};
  l.profile.kind = ControlSpec::Kind::kTable;
  l.profile.times = {0.0, 0.5, 1.0};
  l.profile.values = {0.0, 1.0, 0.0};
  return l;
}

/// Case 1-3 of [Gebhardt2020] §6 (eq. (112)-(118)): body with eq. (111) inertia and its loads.
struct Case {
  Body body{3.0, 1.0 / 7.0, 2.0, 1.0};
  VecQ q0, p0;
  explicit Case(int n) {
    Eigen::Vector3d w(0.0, 0.0, 0.0);
    if (n == 1) w << 6.0, -18.0, 0.0;
    if (n == 3) w << 1.5, 4.5, 0.0;
    if (n == 2) body.set_loads({paper_load(1.0)});
    if (n == 3) body.set_loads({paper_load(0.5)});
    body.state_from_rotation(Eigen::Matrix3d::Identity(), w, q0, p0);
  }
};

/// Per-run summary: final state and the extreme residuals/drifts over the run.
struct RunSummary {
  bool ok = true;
  VecQ q, p;
  double max_pi3 = 0.0, max_g = 0.0;
  double k1 = 0.0, pi1_1 = 0.0, pi2_1 = 0.0;  // at t = 1 s
  double dk = 0.0, dpi1 = 0.0, dpi2 = 0.0;    // max |x(t) - x(1)| for t > 1 s
  double newton_per_step = 0.0;
};

/// Runs integrator `id` (through the library's stepper factory) from (q0, p0) to t_final with
/// Newton tolerance `tol`, recording the invariants of [Gebhardt2020] §6 at every step.
template <class S>
RunSummary run(const std::string& id, const S& sys, const VecQ& q0, const VecQ& p0, double h,
               double t_final, double tol = 1e-10) {
  IntegratorChoice c;
  c.integrator = id;
  c.h = h;
  c.newton_tol = tol;
  c.newton_max_iter = 50;
  auto st = make_stepper_for(sys, c);
  EXPECT_NE(st, nullptr) << id;
  st->set_state(q0, p0);
  const long n = std::lround(t_final / h);
  const long n1 = std::lround(1.0 / h);
  RunSummary r;
  typename S::VecG g;
  Eigen::VectorXd q(q0.size()), p(p0.size());
  for (long k = 1; k <= n; ++k) {
    if (st->advance(1).status != StepStatus::kOk) {
      r.ok = false;
      return r;
    }
    st->get_state(q, p);
    r.q = q;
    r.p = p;
    sys.holonomic_constraint(r.q, g);
    r.max_g = std::max(r.max_g, g.cwiseAbs().maxCoeff());
    r.max_pi3 = std::max(r.max_pi3, std::abs(sys.observable(2, r.q, r.p)));
    const double kin = sys.hamiltonian(r.q, r.p), pi1 = sys.observable(0, r.q, r.p),
                 pi2 = sys.observable(1, r.q, r.p);
    if (k == n1) {
      r.k1 = kin;
      r.pi1_1 = pi1;
      r.pi2_1 = pi2;
    } else if (k > n1) {
      r.dk = std::max(r.dk, std::abs(kin - r.k1));
      r.dpi1 = std::max(r.dpi1, std::abs(pi1 - r.pi1_1));
      r.dpi2 = std::max(r.dpi2, std::abs(pi2 - r.pi2_1));
    }
  }
  r.newton_per_step = static_cast<double>(st->newton_iterations()) / static_cast<double>(n);
  return r;
}

/// Second quotient of precision ([Gebhardt2020] Appendix A, not in the seed text; the usual
/// definition): |q_h(T) - q_{h/2}(T)| / |q_{h/2}(T) - q_{h/4}(T)|, ~ 2^p = 4 for order 2.
template <class S>
double second_quotient(const std::string& id, const S& sys, const VecQ& q0, const VecQ& p0,
                       double h, double t_final) {
  const RunSummary a = run(id, sys, q0, p0, h, t_final);
  const RunSummary b = run(id, sys, q0, p0, h / 2, t_final);
  const RunSummary c = run(id, sys, q0, p0, h / 4, t_final);
  EXPECT_TRUE(a.ok && b.ok && c.ok);
  return (a.q - b.q).norm() / (b.q - c.q).norm();
}

}  // namespace nhsim::test
