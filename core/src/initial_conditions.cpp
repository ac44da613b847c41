#include "nhsim/initial_conditions.hpp"

#include <cmath>
#include <numbers>

namespace nhsim {

double CounterRng::normal() {
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

bool energy_shell_state(const SystemModel& model, const EnergyShellGenerator& g, std::int64_t i,
                        Eigen::VectorXd& q, Eigen::VectorXd& p, std::string& reason) {
  const int n = model.nq();
  CounterRng rng(g.seed, static_cast<std::uint64_t>(i));
  q.resize(n);
  p.resize(n);
  Eigen::VectorXd v(n);
  for (int attempt = 0; attempt < g.max_attempts; ++attempt) {
    for (int j = 0; j < n; ++j) q(j) = g.q_std * rng.normal();
    for (int j = 0; j < n; ++j) v(j) = rng.normal();
    const double V = model.potential(q);
    if (!(V < g.energy)) continue;
    const Eigen::MatrixXd M = model.mass_matrix(q);
    const Eigen::MatrixXd mu = model.constraint_matrix(q);
    const Eigen::LDLT<Eigen::MatrixXd> mldlt(M);
    if (mu.rows() > 0) {
      const Eigen::MatrixXd minv_mut = mldlt.solve(mu.transpose());
      const Eigen::MatrixXd s = mu * minv_mut;
      const Eigen::VectorXd lam = s.ldlt().solve(mu * v);
      v -= minv_mut * lam;
    }
    const double kin = 0.5 * v.dot(M * v);
    if (!(kin > 0.0) || !std::isfinite(kin)) continue;
    p = std::sqrt((g.energy - V) / kin) * (M * v);
    return true;
  }
  reason = "energy shell: no draw with V(q) < E in " + std::to_string(g.max_attempts) + " attempts";
  return false;
}

}  // namespace nhsim
