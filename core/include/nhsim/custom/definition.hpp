// A user-defined system (docs/design.md "User-defined systems"): the spec's symbolic
// definition, and what the server builds from it once: the tapes of V, dV/dq and mu(q), either
// the constant mass matrix with its inverse or the tapes of M(q) and of d/dq (1/2 v^T M(q) v),
// the tapes of the holonomic constraints g(q), G(q) and their Hessians, and the tape of the
// control forces. The system type over it is nhsim/systems/custom_system.hpp.
//
// Scope of this release: the canonical form with named invariants, holonomic constraints (with a
// constant mass matrix, no control forces) and control forces, at most kMaxCustomCoordinates
// coordinates.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nhsim/custom/tape.hpp"

namespace nhsim {

/// The symbolic definition as the spec carries it (field names as in proto
/// nhsim.v1.CustomSystem). Expressions are infix strings (core/src/custom/parser.hpp): numbers,
/// the coordinates, the parameters, pi, + - * / ^ and sin, cos, tan, exp, log, sqrt, abs, pow.
struct CustomSystemSpec {
  /// Names of q^1..q^n, in order: identifiers, distinct.
  std::vector<std::string> coordinates;
  /// Named constants (name, value): identifiers, distinct from each other and the coordinates;
  /// finite values. Units are the user's.
  std::vector<std::pair<std::string, double>> parameters;
  /// M(q): n rows of n entries, symmetric, positive definite at the states the system visits.
  /// Entries may depend on q (then only gonzalez_r and gonzalez_r_fd apply).
  std::vector<std::vector<std::string>> mass_matrix;
  /// V(q) [energy].
  std::string potential;
  /// Instead of mass_matrix and potential: L(q, q') = 1/2 q'^T M q' - V(q), the velocity of
  /// coordinate c named c_dot; M(q) = d^2 L / dq'^2, V = -L(q, 0).
  std::string lagrangian;
  /// mu(q): m rows (constraint one-forms mu^alpha) of n entries; 1 <= m < n, or 0 <= m when
  /// there are holonomic constraints (ng + m < n).
  std::vector<std::vector<std::string>> constraints;
  /// Holonomic constraints g_k(q) = 0, k < ng ([Kinon2023] eq. (1)), in redundant coordinates. The
  /// canonical methods see their velocity form: mu(q) = [G(q); constraints], G = dg/dq. ggl
  /// ([Kinon2023] §4.1) applies when every g_k is at most quadratic in q (constant Hessians) and
  /// `constraints` is empty. A constant mass matrix and no control forces.
  std::vector<std::string> holonomic_constraints;
  /// Control forces: one row per control input u_j (the spec's controls[j] gives u_j(t)), n
  /// entries: b_j(q), the generalised force per unit of u_j. The applied force is
  /// f(q, t) = sum_j b_j(q) u_j(t) - dV/dq ([Kobilarov2010] §4.2, B(q) u). At most kMaxCustomInputs
  /// rows; a constant mass matrix only (the methods that take controls need one).
  std::vector<std::vector<std::string>> control_forces;
  /// Named invariants (name, expression in q, p and the parameters; the momentum conjugate to
  /// coordinate c is p_c), sampled as observables under their names. At most
  /// kMaxCustomInvariants.
  std::vector<std::pair<std::string, std::string>> invariants;
  /// The registered name a spec used it by (set by the server), else empty; reported as the
  /// result's system, no effect on the computation.
  std::string name;
};

/// The most named invariants a definition may have.
inline constexpr int kMaxCustomInvariants = 16;

/// The most coordinates a definition may have (the evaluators' stack buffers hold this many).
inline constexpr int kMaxCustomCoordinates = 32;

/// The most terms the symbolic expansions of one definition may make in all (the symmetry check
/// of a q-dependent M expands M_ij - M_ji): about 0.5 s of compile at most.
inline constexpr double kMaxExpandedTerms = 1e5;

/// The most control inputs (rows of control_forces) a definition may have.
inline constexpr int kMaxCustomInputs = 8;

/// The three kinds of user-defined system, each its own system type (CustomSystem's MF): a
/// constant mass matrix, a mass matrix that depends on q, and a constant one with control forces.
enum class CustomKind { kConstantMass, kVaryingMass, kControlled };

/// The (nq, nc) sizes compiled with fixed-size Eigen types (CustomSystemTypes,
/// nhsim/systems/custom_system.hpp), the fastest: (3, 1) fits the knife edge and the nonholonomic
/// particle, (7, 1) the chaotic quartic system with n = 3. Every other size runs on dynamic-size
/// types (CustomSystem<Eigen::Dynamic, Eigen::Dynamic>). Each fixed size costs 11 (system,
/// integrator) pairs of build time.
inline constexpr std::pair<int, int> kCustomFixedSizes[] = {{3, 1}, {7, 1}};

/// What the integrators evaluate, built once from a CustomSystemSpec.
struct CustomSystemDefinition {
  int nq = 0;
  int nc = 0;  ///< rows of mu: ng holonomic rows G(q), then the nonholonomic ones
  int ng = 0;  ///< holonomic constraints g(q) (0: none)
  std::vector<std::string> coordinates;
  /// True when no entry of M depends on q: then `mass` and `mass_inverse` hold M, else the
  /// tapes `mass_entries` and `kinetic_gradient` evaluate it.
  bool constant_mass = true;
  Eigen::MatrixXd mass;          ///< constant M, nq x nq (empty for a q-dependent M)
  Eigen::MatrixXd mass_inverse;  ///< constant M^-1, nq x nq (empty for a q-dependent M)
  custom::Tape mass_entries;     ///< q -> M(q), nq x nq outputs, row-major (q-dependent M)
  /// (q, v) -> d/dq (1/2 v^T M(q) v), 2 nq inputs, nq outputs (q-dependent M): the term
  /// -1/2 v^T (dM/dq^i) v of gonzalez_r's grad H, [Celledoni2019] eq. (18a).
  custom::Tape kinetic_gradient;
  /// The spec field M came from, for errors at a state: "mass_matrix" or "lagrangian".
  std::string mass_field = "mass_matrix";
  int nu = 0;                       ///< the number of control inputs (rows of control_forces)
  custom::Tape control_forces;      ///< q -> b_j(q), nu x nq outputs, row-major (nu > 0)
  custom::Tape potential;           ///< q -> V(q), 1 output
  custom::Tape grad_potential;      ///< q -> dV/dq, nq outputs
  custom::Tape constraint;          ///< q -> mu(q), nc x nq outputs, row-major
  custom::Tape holonomic;           ///< q -> g(q), ng outputs (ng > 0)
  custom::Tape holonomic_jacobian;  ///< q -> G(q) = dg/dq, ng x nq outputs, row-major (ng > 0)
  /// The first k whose g_k is not at most quadratic in q (its Hessian D^2 g_k depends on q), or
  /// -1 when every Hessian is constant.
  int nonquadratic_holonomic = -1;
  /// w -> rows (D^2 g_k w)^T, ng x nq outputs, row-major, when every Hessian is constant: the
  /// inputs are the components of w (in the coordinates' slots; the Hessians do not depend on q).
  custom::Tape holonomic_hessian_contract;
  std::vector<std::string> invariant_names;  ///< the observables' names, in the spec's order
  custom::Tape invariants;  ///< (q, p) -> the invariants: 2 nq inputs, one output each
  /// Which system type runs the definition.
  CustomKind kind() const {
    return !constant_mass ? CustomKind::kVaryingMass
           : nu > 0       ? CustomKind::kControlled
                          : CustomKind::kConstantMass;
  }
  /// True when mu depends only on coordinates j with (M^-1 mu^T)_j identically zero (checked
  /// symbolically): then mu(q) does not move along the constraint forces and si_dla's
  /// multiplier equation is affine (one linear solve; nhsim/integrators/si_dla.hpp).
  bool constraint_affine_along_forces = false;
};

/// Why integrator `id` does not apply to this definition although it applies to its system type,
/// or std::nullopt: ggl needs holonomic constraints, at most quadratic in q, and no nonholonomic
/// rows (these are facts about the definition, not the type).
std::optional<std::string> custom_integrator_problem(const CustomSystemDefinition& def,
                                                     const std::string& id);

/// Parses, checks, differentiates and compiles `spec`. Throws SpecError naming the field under
/// `field` (e.g. "custom_system.mass_matrix[1][2]", parse errors with "at position k"): empty or
/// invalid or repeated names; invariant names that are repeated or name a standard observable,
/// more than kMaxCustomInvariants of them; more than kMaxCustomCoordinates coordinates; no
/// constraint rows or as many as coordinates (holonomic ones included); rows of the wrong length;
/// a holonomic constraint that is constant, or given with a q-dependent M or control forces;
/// syntax errors, unknown names, functions outside the whitelist, expressions over the size and
/// depth limits; both or neither of (mass_matrix, potential) and lagrangian; a lagrangian with
/// terms linear in the velocities or not quadratic in them; M not symmetric (the first entry
/// (i, j), i < j, with M_ij != M_ji, identically in q for a q-dependent M); a constant M that is
/// not positive definite; control forces with a q-dependent M, more than kMaxCustomInputs of
/// them, or rows of the wrong length; a tape over kMaxTapeRegisters.
std::shared_ptr<const CustomSystemDefinition> compile_custom_system(
    const CustomSystemSpec& spec, const std::string& field = "custom_system");

/// Why a q-dependent M(q) is not a mass matrix at q: "M(q) is not finite", "M(q) is not
/// positive definite (smallest eigenvalue ..., largest ...)" (below 1e-12 times the largest);
/// std::nullopt when it is, and always for a constant M (checked once, at compilation).
std::optional<std::string> custom_mass_problem(const CustomSystemDefinition& def,
                                               const Eigen::VectorXd& q);

/// Why mu(q) is not a set of nc independent constraint one-forms at q: "mu(q) has rank r < nc
/// rows" (singular values above 1e-12 max(1, |mu|)), "mu(q) is not finite"; std::nullopt when
/// it is.
std::optional<std::string> custom_constraint_problem(const CustomSystemDefinition& def,
                                                     const Eigen::VectorXd& q);

/// Why the definition does not admit q: custom_mass_problem, else custom_constraint_problem.
/// q of length nq.
std::optional<std::string> custom_state_problem(const CustomSystemDefinition& def,
                                                const Eigen::VectorXd& q);

/// Checks the definition at a state: M(q) positive definite, mu(q) of full row rank nc. Throws
/// SpecError naming `where` (e.g. "initial state 3") and the field of M (field + ".mass_matrix",
/// or ".lagrangian" when the spec gave one) or of mu (field + ".constraints") otherwise.
void check_custom_system_at(const CustomSystemDefinition& def, const Eigen::VectorXd& q,
                            const std::string& where, const std::string& field = "custom_system");

}  // namespace nhsim
