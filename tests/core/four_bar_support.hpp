// A run of an integrator (by id, through the library's stepper factory) on the double four-bar
// linkage of [Kinon2023] §5.2 from the upright state, recording constraint residuals, energy
// increments and the dissipated work; shared by four_bar_test.cpp and ggl_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "nhsim/holonomic.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/four_bar.hpp"

namespace nhsim::test {

struct BarRun {
  double max_g = 0, max_gv_ext = 0, max_gv_int = 0, max_dh = 0, h_drop = 0,
         max_energy_rise = -1e300, balance = 0;
  int steps_ok = 0;
  double theta_min = 10;
};

inline BarRun run(const std::string& id, double eta, double h, int steps, double tol = 0.0,
                  int max_iter = 0) {
  const FourBar fb(1.0, 1.0, 9.81, eta);
  FourBar::VecQ q, p;
  fb.upright_state(1.0, q, p);
  IntegratorChoice c;
  c.integrator = id;
  c.h = h;
  c.newton_tol = tol;
  c.newton_max_iter = max_iter;
  auto st = make_stepper_for(fb, c);
  EXPECT_NE(st, nullptr);
  Eigen::VectorXd qd = q, pd = p;
  st->set_state(qd, pd);
  BarRun r;
  const double h0 = fb.hamiltonian(q, p);
  double hprev = h0, work = 0.0;
  for (int n = 0; n < steps; ++n) {
    FourBar::VecQ qo = q, po = p;
    const AdvanceResult a = st->advance(1);
    if (a.status != StepStatus::kOk) break;
    ++r.steps_ok;
    st->get_state(qd, pd);
    q = qd;
    p = pd;
    r.max_g = std::max(r.max_g, position_constraint_residual(fb, q));
    r.max_gv_ext = std::max(r.max_gv_ext, fb.observable(10, q, p));
    r.max_gv_int = std::max(r.max_gv_int, fb.observable(8, q, p));
    const double hn = fb.hamiltonian(q, p);
    r.max_dh = std::max(r.max_dh, std::abs(hn - hprev));
    r.max_energy_rise = std::max(r.max_energy_rise, hn - hprev);
    // Dissipated work h v.C v with the mean velocity of the step (q^{n+1} - q^n)/h.
    const FourBar::VecQ vn = (q - qo) / h;
    FourBar::MatQ cm;
    fb.dissipation_matrix(q, cm);
    work += h * vn.dot(cm * vn);
    (void)po;
    hprev = hn;
    r.theta_min = std::min(r.theta_min, std::atan2(q(3), q(2)));
  }
  r.h_drop = h0 - hprev;
  r.balance = r.h_drop - work;
  return r;
}

}  // namespace nhsim::test
