#include "nhsim/initial_conditions.hpp"

#include <cmath>
#include <numbers>

#include "nhsim/dmath.hpp"

namespace nhsim {

double CounterRng::normal() {
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * dmath::log(u1)) * dmath::cos(2.0 * std::numbers::pi * u2);
}

void project_onto_distribution(const SystemModel& model, const Eigen::VectorXd& q,
                               Eigen::VectorXd& v) {
  const Eigen::MatrixXd mu = model.constraint_matrix(q);
  if (mu.rows() == 0) return;
  const Eigen::LDLT<Eigen::MatrixXd> mldlt(model.mass_matrix(q));
  const Eigen::MatrixXd minv_mut = mldlt.solve(mu.transpose());
  const Eigen::MatrixXd s = mu * minv_mut;
  const Eigen::VectorXd lam = s.ldlt().solve(mu * v);
  v -= minv_mut * lam;
}

void velocity_perturbation_state(const SystemModel& model, const VelocityPerturbation& g,
                                 std::int64_t i, Eigen::VectorXd& q, Eigen::VectorXd& p) {
  const int n = model.nq();
  CounterRng rng(g.seed, static_cast<std::uint64_t>(i));
  q = Eigen::Map<const Eigen::VectorXd>(g.base.q.data(), n);
  p = Eigen::Map<const Eigen::VectorXd>(g.base.p.data(), n);
  Eigen::VectorXd v(n);
  for (int j = 0; j < n; ++j) v(j) = g.v_std * rng.normal();
  project_onto_distribution(model, q, v);
  p += model.mass_matrix(q) * v;
}

bool energy_shell_state(const SystemModel& model, const EnergyShellGenerator& g, std::int64_t i,
                        Eigen::VectorXd& q, Eigen::VectorXd& p, std::string& reason,
                        const std::atomic<bool>* cancel) {
  const int n = model.nq();
  CounterRng rng(g.seed, static_cast<std::uint64_t>(i));
  q.resize(n);
  p.resize(n);
  Eigen::VectorXd v(n);
  for (int attempt = 0; attempt < g.max_attempts; ++attempt) {
    if (cancel != nullptr && attempt % kDrawsPerCancelCheck == kDrawsPerCancelCheck - 1 &&
        cancel->load(std::memory_order_relaxed)) {
      reason = "cancelled";
      return false;
    }
    for (int j = 0; j < n; ++j) q(j) = g.q_std * rng.normal();
    for (int j = 0; j < n; ++j) v(j) = rng.normal();
    const double V = model.potential(q);
    if (!(V < g.energy)) continue;
    // A user-defined M(q) not positive definite or mu(q) of lower rank here: before the
    // projection, which needs both.
    if (const auto problem = model.state_problem(q)) {
      reason = "energy shell: " + *problem + " at the drawn q";
      return false;
    }
    project_onto_distribution(model, q, v);
    const Eigen::MatrixXd M = model.mass_matrix(q);
    const double kin = 0.5 * v.dot(M * v);
    if (!(kin > 0.0) || !std::isfinite(kin)) continue;
    p = std::sqrt((g.energy - V) / kin) * (M * v);
    return true;
  }
  reason = "energy shell: no draw with V(q) < E in " + std::to_string(g.max_attempts) + " attempts";
  return false;
}

}  // namespace nhsim
