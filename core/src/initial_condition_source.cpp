// The initial-condition source of a spec (InitialConditions: explicit states, energy shell or
// velocity perturbation): validation and trajectory i's state (nhsim/initial_conditions.hpp).
#include <cmath>
#include <sstream>
#include <type_traits>

#include "nhsim/initial_conditions.hpp"

namespace nhsim {
namespace {

constexpr double kConstraintTolerance = 1e-10;
/// Smallest singular-value ratio of mu M^-1 mu^T at a velocity perturbation's base state: below,
/// the projection's solve loses all but about eps / ratio of its digits.
constexpr double kMinProjectionConditioning = 1e-12;

bool all_finite_vec(const std::vector<double>& v) {
  for (double x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

/// An explicit state (or a perturbation's base state) must have length nq, be finite and lie
/// on the constraints. `f` is its field path.
void check_state(const CanonicalState& s, const std::string& f, const SystemModel& model,
                 const std::string& system) {
  const int nq = model.nq();
  if (static_cast<int>(s.q.size()) != nq) {
    throw SpecError(f + ".q", "has " + std::to_string(s.q.size()) + " entries, system '" + system +
                                  "' needs " + std::to_string(nq));
  }
  if (static_cast<int>(s.p.size()) != nq) {
    throw SpecError(f + ".p", "has " + std::to_string(s.p.size()) + " entries, system '" + system +
                                  "' needs " + std::to_string(nq));
  }
  if (!all_finite_vec(s.q)) throw SpecError(f + ".q", "must be finite");
  if (!all_finite_vec(s.p)) throw SpecError(f + ".p", "must be finite");
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(s.q.data(), nq);
  const Eigen::VectorXd p = Eigen::Map<const Eigen::VectorXd>(s.p.data(), nq);
  if (model.ng() > 0) {
    const double g = model.position_constraint_residual(q);
    if (!(g <= kConstraintTolerance)) {
      std::ostringstream os;
      os << "off the holonomic constraints: max |g(q)| = " << g << " > " << kConstraintTolerance;
      throw SpecError(f + ".q", os.str());
    }
  }
  const double res = model.constraint_residual(q, p);
  if (!(res <= kConstraintTolerance)) {
    std::ostringstream os;
    os << "off the constraint distribution: max |mu(q) M^-1 p| = " << res << " > "
       << kConstraintTolerance;
    throw SpecError(f + ".p", os.str());
  }
}

void validate(const ExplicitStates& ic, const SystemModel& model, const std::string& system) {
  if (ic.states.empty()) {
    throw SpecError("initial_conditions",
                    "zero trajectories: give states, energy_shell or velocity_perturbation");
  }
  for (std::size_t i = 0; i < ic.states.size(); ++i) {
    check_state(ic.states[i], "initial_conditions.states[" + std::to_string(i) + "]", model,
                system);
  }
}

void validate(const EnergyShellGenerator& g, const SystemModel& model, const std::string&) {
  const std::string f = "initial_conditions.energy_shell";
  if (model.ng() > 0) {
    throw SpecError(f,
                    "not available for a system with holonomic constraints (a random q "
                    "violates g(q) = 0): give states or velocity_perturbation");
  }
  if (g.count < 1) throw SpecError(f + ".count", "zero trajectories: count must be >= 1");
  if (!std::isfinite(g.energy)) throw SpecError(f + ".energy", "must be finite");
  if (!std::isfinite(g.q_std) || g.q_std <= 0.0) {
    throw SpecError(f + ".q_std", "must be finite and > 0");
  }
  if (g.max_attempts < 1 || g.max_attempts > kMaxEnergyShellAttempts) {
    throw SpecError(f + ".max_attempts",
                    "must be in [1, " + std::to_string(kMaxEnergyShellAttempts) + "]");
  }
}

void validate(const VelocityPerturbation& g, const SystemModel& model, const std::string& system) {
  const std::string f = "initial_conditions.velocity_perturbation";
  if (g.count < 1) throw SpecError(f + ".count", "zero trajectories: count must be >= 1");
  if (!std::isfinite(g.v_std) || g.v_std <= 0.0) {
    throw SpecError(f + ".v_std", "must be finite and > 0");
  }
  check_state(g.base, f + ".base", model, system);
  // The projection onto D_q = ker mu(q) solves with mu M^-1 mu^T: where the constraint rows are
  // dependent (a linkage's singular configuration) it is singular and every draw would be
  // non-finite, so the spec cannot succeed.
  const int n = model.nq();
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(g.base.q.data(), n);
  const Eigen::MatrixXd mu = model.constraint_matrix(q);
  if (mu.rows() == 0) return;
  const Eigen::MatrixXd gram = mu * model.mass_matrix(q).ldlt().solve(mu.transpose());
  const Eigen::VectorXd sigma = gram.jacobiSvd().singularValues();
  const double ratio = sigma(sigma.size() - 1) / sigma(0);
  if (!(ratio > kMinProjectionConditioning)) {
    std::ostringstream os;
    os.precision(3);
    os << "the constraint rows mu(q) are dependent at the base state (mu M^-1 mu^T has smallest "
          "/ largest singular value "
       << ratio << " < " << kMinProjectionConditioning
       << "), so no velocity can be projected onto the distribution there; move the base away "
          "from this singular configuration";
    throw SpecError(f + ".base.q", os.str());
  }
}

}  // namespace

std::int64_t trajectory_count(const InitialConditions& ic) {
  return std::visit(
      [](const auto& source) -> std::int64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(source)>, ExplicitStates>) {
          return static_cast<std::int64_t>(source.states.size());
        } else {
          return source.count;
        }
      },
      ic);
}

void validate_initial_conditions(const InitialConditions& ic, const SystemModel& model,
                                 const std::string& system) {
  std::visit([&](const auto& source) { validate(source, model, system); }, ic);
}

bool initial_state(const InitialConditions& ic, const SystemModel& model, std::int64_t i,
                   Eigen::VectorXd& q, Eigen::VectorXd& p, std::string& reason,
                   const std::atomic<bool>* cancel) {
  if (const auto* shell = std::get_if<EnergyShellGenerator>(&ic)) {
    return energy_shell_state(model, *shell, i, q, p, reason, cancel);
  }
  if (const auto* perturbation = std::get_if<VelocityPerturbation>(&ic)) {
    velocity_perturbation_state(model, *perturbation, i, q, p);
    return true;
  }
  const auto& s = std::get<ExplicitStates>(ic).states[static_cast<std::size_t>(i)];
  const int nq = model.nq();
  q = Eigen::Map<const Eigen::VectorXd>(s.q.data(), nq);
  p = Eigen::Map<const Eigen::VectorXd>(s.p.data(), nq);
  return true;
}

}  // namespace nhsim
