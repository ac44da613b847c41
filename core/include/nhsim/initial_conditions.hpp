// Initial conditions: the counter-based random stream, the generators (energy shell, velocity
// perturbation), and the initial-condition source of a spec (InitialConditions in
// nhsim/spec_types.hpp): its validation and trajectory i's state.
#pragma once

#include <Eigen/Dense>
#include <atomic>
#include <cstdint>
#include <string>

#include "nhsim/model.hpp"
#include "nhsim/spec_types.hpp"

namespace nhsim {

/// SplitMix64 stream keyed by (seed, stream): the draws of trajectory i depend only on
/// (seed, i), never on threads or shards.
class CounterRng {
 public:
  CounterRng(std::uint64_t seed, std::uint64_t stream)
      : state_(mix(seed ^ mix(stream + 0x632BE59BD9B4E019ULL))) {}
  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ULL;
    return mix(state_);
  }
  /// Uniform on (0, 1), 53 random bits.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  /// Standard normal by Box-Muller (one value per two uniforms).
  double normal();

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

/// Trajectory i's state on the energy shell H = g.energy (see EnergyShellGenerator):
/// q ~ N(0, q_std^2 I); v ~ N(0, I) projected M-orthogonally onto D_q =
/// ker mu(q), v_D = v - M^-1 mu^T (mu M^-1 mu^T)^-1 mu v; p = s M v_D with s chosen so that
/// H(q, p) = E. Draws with V(q) >= E (or v_D = 0) are redrawn from the same stream.
/// Returns false with `reason` set when max_attempts draws all fail, when the drawn q is not a
/// state the system admits (SystemModel::state_problem: a user-defined mu of lower rank there;
/// the trajectory then fails with that reason), or (reason "cancelled")
/// when `cancel` is set: it is looked at every kDrawsPerCancelCheck draws.
bool energy_shell_state(const SystemModel& model, const EnergyShellGenerator& g, std::int64_t i,
                        Eigen::VectorXd& q, Eigen::VectorXd& p, std::string& reason,
                        const std::atomic<bool>* cancel = nullptr);

/// Draws between two looks at the cancel flag: about 7 ms on the chaotic system.
inline constexpr int kDrawsPerCancelCheck = 16384;

/// Projects the velocity v (length nq) M(q)-orthogonally onto D_q = ker mu(q), in place:
/// v <- v - M^-1 mu^T (mu M^-1 mu^T)^-1 mu v. mu must have full row rank.
void project_onto_distribution(const SystemModel& model, const Eigen::VectorXd& q,
                               Eigen::VectorXd& v);

/// Trajectory i's state of a VelocityPerturbation: q = base.q, p = base.p + M(q) v_D with
/// v ~ N(0, v_std^2 I) from the (seed, i) stream projected onto D_q (project_onto_distribution).
/// The spec's validation has checked the base state; q and p are resized to nq.
void velocity_perturbation_state(const SystemModel& model, const VelocityPerturbation& g,
                                 std::int64_t i, Eigen::VectorXd& q, Eigen::VectorXd& p);

/// Number of trajectories `ic` asks for: the number of explicit states or the generator's count.
std::int64_t trajectory_count(const InitialConditions& ic);

/// Checks `ic` for `model` (the system named `system`, used in messages). Throws SpecError with
/// the field path: "initial_conditions" for zero explicit states; "initial_conditions.states[i].q"
/// / ".p" for a state of the wrong length, non-finite, or off the constraints (|g(q)| or
/// |mu(q) M^-1 p| above 1e-10); "initial_conditions.energy_shell.<field>" or
/// "initial_conditions.velocity_perturbation.<field>" for a bad generator setting, and
/// "initial_conditions.energy_shell" for a system with holonomic constraints.
void validate_initial_conditions(const InitialConditions& ic, const SystemModel& model,
                                 const std::string& system);

/// Trajectory i's initial state (q, p resized to nq) from a validated `ic`; depends only on ic
/// and i. Returns false with `reason` set when the energy-shell generator gives up on i or
/// stops because `cancel` was set (energy_shell_state).
bool initial_state(const InitialConditions& ic, const SystemModel& model, std::int64_t i,
                   Eigen::VectorXd& q, Eigen::VectorXd& p, std::string& reason,
                   const std::atomic<bool>* cancel = nullptr);

}  // namespace nhsim
