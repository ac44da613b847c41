// The vocabulary shared by the spec, the systems and the integrators: the spec error, a
// canonical state, the initial-condition sources, an integrator choice, control and load data.
// Core headers include this instead of nhsim/ensemble.hpp (the runner's contract).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace nhsim {

/// Thrown by validate() / run_ensemble() for a spec that cannot run. `field` is the offending
/// field path in proto (snake_case) naming, e.g. "integrators[1].h" or
/// "initial_conditions.states[3].p"; what() carries the reason. The service answers
/// INVALID_ARGUMENT with both.
class SpecError : public std::invalid_argument {
 public:
  SpecError(std::string field, const std::string& reason)
      : std::invalid_argument(field + ": " + reason), field_(std::move(field)), reason_(reason) {}
  const std::string& field() const { return field_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string field_;
  std::string reason_;
};

/// A state in canonical coordinates (q, p), each of length nq of the system.
struct CanonicalState {
  std::vector<double> q;
  std::vector<double> p;
};

/// A list of states that copies share: copying a StateList copies a pointer, and the first
/// change through a shared copy gives that copy its own list (copy on write). So the cases of a
/// sweep, each a whole EnsembleSpec, hold one copy of the explicit states between them. Reads
/// never copy; change a list only from the thread that holds it (as any value).
class StateList {
 public:
  StateList() = default;
  StateList(std::initializer_list<CanonicalState> states)
      : states_(std::make_shared<std::vector<CanonicalState>>(states)) {}
  StateList(std::vector<CanonicalState> states)  // NOLINT(google-explicit-constructor): a list
      : states_(std::make_shared<std::vector<CanonicalState>>(std::move(states))) {}

  std::size_t size() const { return states_ ? states_->size() : 0; }
  bool empty() const { return size() == 0; }
  const CanonicalState& operator[](std::size_t i) const { return (*states_)[i]; }
  const CanonicalState* begin() const { return states_ ? states_->data() : nullptr; }
  const CanonicalState* end() const { return begin() + size(); }
  /// Whether `other` refers to the same list (no copy between them).
  bool shares(const StateList& other) const { return states_ && states_ == other.states_; }

  /// The list to change in place; copies it first when another StateList shares it.
  std::vector<CanonicalState>& edit() {
    if (!states_) {
      states_ = std::make_shared<std::vector<CanonicalState>>();
    } else if (states_.use_count() > 1) {
      states_ = std::make_shared<std::vector<CanonicalState>>(*states_);
    }
    return *states_;
  }
  void push_back(CanonicalState state) { edit().push_back(std::move(state)); }
  void reserve(std::size_t n) { edit().reserve(n); }
  void clear() { states_.reset(); }

 private:
  std::shared_ptr<std::vector<CanonicalState>> states_;
};

/// Explicit initial states, one trajectory each; each must satisfy the constraints.
struct ExplicitStates {
  StateList states;
};

/// The largest EnergyShellGenerator::max_attempts: a draw costs about 0.4 us, so one
/// trajectory's draws take at most about 0.4 s (cancel is seen between trajectories).
inline constexpr int kMaxEnergyShellAttempts = 1'000'000;

/// Random initial states on an energy shell H(q, p) = energy, with p on the constraint
/// distribution (mu(q) M(q)^-1 p = 0). Trajectory i's state depends only on (seed, i):
/// q ~ N(0, q_std^2 I); a velocity v ~ N(0, I) is projected M-orthogonally onto D_q, p = M v,
/// scaled so that H = energy exactly. Draws with V(q) >= energy are redrawn from the same
/// (seed, i) stream, at most max_attempts times (then SpecError on the generator).
struct EnergyShellGenerator {
  double energy = 0.0;     ///< target energy H, system energy units
  std::uint64_t seed = 0;  ///< 64-bit seed
  std::int64_t count = 0;  ///< number of trajectories
  double q_std = 0.5;      ///< standard deviation of each q component
  /// Redraws allowed per trajectory before giving up; at most kMaxEnergyShellAttempts.
  int max_attempts = 10000;
};

/// Random perturbations of one base state's velocity, e.g. the perturbed initial angular
/// velocities of a rigid body ([Gebhardt2020] §6): trajectory i has q = base.q and
/// p = base.p + M(q) v_D, where v ~ N(0, v_std^2 I) is drawn from the (seed, i) stream and
/// projected M-orthogonally onto D_q = ker mu(q), v_D = v - M^-1 mu^T (mu M^-1 mu^T)^-1 mu v.
/// The base state must satisfy the constraints (g(q) = 0 where the system has holonomic
/// constraints, mu M^-1 p = 0); every perturbed state then satisfies them too, because q is
/// unchanged and v_D lies in D_q (mu includes G(q) for holonomic systems). v_std is in units
/// of dq/dt (system length or angle per time unit).
struct VelocityPerturbation {
  CanonicalState base;
  double v_std = 0.0;      ///< standard deviation of each velocity component before projection; > 0
  std::uint64_t seed = 0;  ///< 64-bit seed
  std::int64_t count = 0;  ///< number of trajectories
};

/// Where the trajectories' initial states come from: exactly one source. Trajectory i's state
/// depends only on the source and i (docs/design.md). A default-constructed value is an empty
/// ExplicitStates, which the runner refuses ("zero trajectories").
using InitialConditions = std::variant<ExplicitStates, EnergyShellGenerator, VelocityPerturbation>;

/// One integrator to compare: id (see list_integrators()), step h, sampling and solver settings.
struct IntegratorChoice {
  std::string integrator;         ///< id, e.g. "gonzalez"
  double h = 0.0;                 ///< step size, system time units; > 0, finite
  std::int64_t sample_every = 1;  ///< steps between samples (t = 0 is always sampled); >= 1
  double newton_tol = 0.0;        ///< 0 = integrator default (documented per integrator)
  int newton_max_iter = 0;        ///< 0 = integrator default
};

/// One control input u_i(t) of a controlled system ([Kobilarov2010] §4.2, f(q, u) = B(q) u - grad
/// V): data from a small closed set, never code. Validated by validate_controls()
/// (nhsim/controls.hpp); which fields a kind uses:
///   kConstant: u = value;
///   kSine:     u = amplitude sin(omega t + phase);   kCosine: amplitude cos(omega t + phase);
///   kTable:    piecewise-linear through (times[j], values[j]), times strictly increasing,
///              held constant before times[0] and after times.back().
/// Units: u in the system's generalised-force units (N m for an angle), omega [rad/s],
/// phase [rad], t and times in system time units.
struct ControlSpec {
  enum class Kind { kUnspecified = 0, kConstant = 1, kSine = 2, kCosine = 3, kTable = 4 };
  Kind kind = Kind::kUnspecified;
  double value = 0.0;
  double amplitude = 0.0;
  double omega = 0.0;
  double phase = 0.0;
  std::vector<double> times;
  std::vector<double> values;
};

/// One external material load of a system that declares loads ([Gebhardt2020] eq. (84),
/// (115)-(118)): the torque m(t) = profile(t) * (direction[0] d1 + direction[1] d2 + direction[2]
/// d3), i.e. `direction` holds the three material components in the moving director frame [kg m^2 /
/// s^2 = N m] and `profile` is a dimensionless time profile from the ControlSpec kinds
/// ([Gebhardt2020] eq. (116) f(t) is the table (0, 0), (0.5, 1), (1, 0), held at 0 after t = 1).
/// Validated by validate_loads() (nhsim/controls.hpp): errors name "loads[i].direction",
/// "loads[i].profile.times", ...
struct LoadSpec {
  std::vector<double> direction;  ///< 3 finite material components [N m]
  ControlSpec profile;            ///< dimensionless factor f(t)
};

}  // namespace nhsim
