// The vocabulary shared by the spec, the systems and the integrators: the spec error, a
// canonical state, an integrator choice, control and load data. Core headers include this
// instead of nhsim/ensemble.hpp (the runner's contract).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
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

/// One integrator to compare: id (see list_integrators()), step h, sampling and solver settings.
struct IntegratorChoice {
  std::string integrator;         ///< id, e.g. "gonzalez"
  double h = 0.0;                 ///< step size, system time units; > 0, finite
  std::int64_t sample_every = 1;  ///< steps between samples (t = 0 is always sampled); >= 1
  double newton_tol = 0.0;        ///< 0 = integrator default (documented per integrator)
  int newton_max_iter = 0;        ///< 0 = integrator default
};

/// One control input u_i(t) of a controlled system (seed 002 §4.2, f(q, u) = B(q) u - grad V):
/// data from a small closed set, never code. Validated by validate_controls()
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

/// One external material load of a system that declares loads (seed 004 eq. (84), (115)-(118)):
/// the torque m(t) = profile(t) * (direction[0] d1 + direction[1] d2 + direction[2] d3), i.e.
/// `direction` holds the three material components in the moving director frame
/// [kg m^2 / s^2 = N m] and `profile` is a dimensionless time profile from the ControlSpec kinds
/// (seed 004 eq. (116) f(t) is the table (0, 0), (0.5, 1), (1, 0), held at 0 after t = 1).
/// Validated by validate_loads() (nhsim/controls.hpp): errors name "loads[i].direction",
/// "loads[i].profile.times", ...
struct LoadSpec {
  std::vector<double> direction;  ///< 3 finite material components [N m]
  ControlSpec profile;            ///< dimensionless factor f(t)
};

}  // namespace nhsim
