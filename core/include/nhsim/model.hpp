// SystemModel: a system with its parameters bound, seen through a dynamic-size interface.
// Used outside the step loop (initial conditions, validation, making steppers); the steppers
// themselves work on the concrete, fixed-size system type.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/catalogue.hpp"
#include "nhsim/lanes.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

class SystemModel {
 public:
  virtual ~SystemModel() = default;
  virtual int nq() const = 0;  ///< configuration dimension n
  virtual int nc() const = 0;  ///< number of constraint one-forms m
  /// V(q); q of length nq.
  virtual double potential(const Eigen::VectorXd& q) const = 0;
  /// M(q), nq x nq.
  virtual Eigen::MatrixXd mass_matrix(const Eigen::VectorXd& q) const = 0;
  /// mu(q), nc x nq (rows = constraint one-forms).
  virtual Eigen::MatrixXd constraint_matrix(const Eigen::VectorXd& q) const = 0;
  /// H(q, p) = 1/2 p^T M^-1 p + V(q).
  virtual double hamiltonian(const Eigen::VectorXd& q, const Eigen::VectorXd& p) const = 0;
  /// max_alpha |mu^alpha(q) M^-1(q) p|.
  virtual double constraint_residual(const Eigen::VectorXd& q, const Eigen::VectorXd& p) const = 0;
  /// A stepper for `choice` (integrator id known and applicable; h > 0). Settings 0 in the
  /// choice mean the integrator's defaults. Throws SpecError("integrator", ...) if the
  /// integrator does not apply to this system.
  virtual std::unique_ptr<Stepper> make_stepper(const IntegratorChoice& choice) const = 0;
  /// Why integrator `id`, which applies to the system's type, does not apply to this system as
  /// defined (e.g. ggl on a user-defined system with nonholonomic rows:
  /// custom_integrator_problem()); std::nullopt when it does, and for every catalogue system.
  virtual std::optional<std::string> integrator_problem(const std::string& /*id*/) const {
    return std::nullopt;
  }
  /// A lane stepper for `choice` (nhsim/lanes.hpp) with resolved `lanes` settings
  /// (resolve_lane_settings(), not kAuto), where this system and integrator have lane kernels;
  /// nullptr otherwise (and for kOff): the ensemble then steps one trajectory at a time.
  virtual std::unique_ptr<LaneStepper> make_lane_stepper(const IntegratorChoice& /*choice*/,
                                                         const LaneSettings& /*lanes*/) const {
    return nullptr;
  }
  /// Number of holonomic constraints g(q) = 0 ([Kinon2023] eq. (1), [Gebhardt2020] §3.5); 0 for
  /// none.
  virtual int ng() const { return 0; }
  /// max_k |g_k(q)|, the position-level residual; 0 without holonomic constraints.
  virtual double position_constraint_residual(const Eigen::VectorXd& /*q*/) const { return 0.0; }
  /// max_k |(G(q) M^-1 p)_k| (G = Dg, NG x nq), the velocity-level residual of the holonomic
  /// constraints alone; 0 without holonomic constraints.
  virtual double velocity_constraint_residual(const Eigen::VectorXd& /*q*/,
                                              const Eigen::VectorXd& /*p*/) const {
    return 0.0;
  }
  /// Why q is not a state the system's definition admits: for a user-defined system, mu(q) of
  /// lower rank than its rows (e.g. "mu(q) has rank 0 < 1 rows"); std::nullopt for every
  /// catalogue system, whose mu has full rank wherever it is defined.
  virtual std::optional<std::string> state_problem(const Eigen::VectorXd& /*q*/) const {
    return std::nullopt;
  }
  /// Names of the system's own observables, computed from (q, p) (e.g. the sleigh's skate
  /// point "x_s", "y_s"); empty for most systems. A spec may request them by name.
  virtual std::vector<std::string> observable_names() const { return {}; }
  /// Observable k of observable_names() at (q, p); q, p of length nq.
  virtual double observable(int /*k*/, const Eigen::VectorXd& /*q*/,
                            const Eigen::VectorXd& /*p*/) const {
    return 0.0;
  }
  /// Binds the control inputs (EnsembleSpec::controls); steppers made afterwards use them.
  /// Throws SpecError("controls...", ...) for an invalid list (validate_controls()); a system
  /// without inputs accepts only an empty list.
  virtual void set_controls(const std::vector<ControlSpec>& controls) {
    if (!controls.empty()) throw SpecError("controls", "this system has no control inputs");
  }
  /// Binds the external loads (EnsembleSpec::loads, [Gebhardt2020] eq. (84)); steppers made
  /// afterwards use them. Throws SpecError("loads...", ...) (validate_loads()); a system without
  /// loads accepts only an empty list.
  virtual void set_loads(const std::vector<LoadSpec>& loads) {
    if (!loads.empty()) throw SpecError("loads", "this system takes no loads");
  }
};

/// A registered system: its catalogue entry and a factory binding parameters.
struct SystemEntry {
  SystemInfo info;
  /// Builds the model from a complete parameter map (defaults filled in, validated).
  std::unique_ptr<SystemModel> (*make)(const std::map<std::string, double>& parameters);
  /// Why integrator `id` does not apply (nullopt if it applies); id must be known.
  std::optional<std::string> (*not_applicable)(const std::string& id);
  /// A lower bound of V(q) over every q for the given (complete) parameters: an energy shell
  /// at or below it has no state with positive kinetic energy and is refused at validation.
  /// Null where V is unbounded below or no bound is known.
  double (*potential_lower_bound)(const std::map<std::string, double>& parameters) = nullptr;
};

/// All registered systems, in catalogue order.
const std::vector<SystemEntry>& system_registry();

/// Finds a system entry by name; nullptr when unknown.
const SystemEntry* find_system(const std::string& name);

/// Parameters with defaults filled in. Throws SpecError("parameters.<name>", ...) for unknown
/// names, non-finite values, values out of bounds, or non-integers where an integer is needed.
std::map<std::string, double> complete_parameters(const SystemEntry& entry,
                                                  const std::map<std::string, double>& given);

}  // namespace nhsim
