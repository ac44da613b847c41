// The structures a system type can offer, as C++20 concepts. An integrator states what it
// requires of a system by naming these in its descriptor (kApplies<S>); the registry applies it
// exactly where they hold (nhsim/integrators/registry.hpp). A system opts into a structure by
// declaring the flag named below and providing the members listed.
#pragma once

#include <Eigen/Dense>
#include <concepts>

#include "nhsim/holonomic.hpp"

namespace nhsim {

/// Canonical form on T*Q: M(q), V(q), mu(q) and H(q, p) = 1/2 p^T M^-1 p + V. Every system has
/// one unless it declares kHasCanonicalForm = false (the Suslov problem: its canonical equations
/// miss the Lie-Poisson term).
template <class S>
concept CanonicalForm = !requires {
  requires !S::kHasCanonicalForm;
};

/// A constant mass matrix M (kConstantMass = true): the class of [Kobilarov2010] §4.1.
template <class S>
concept ConstantMass = requires {
  requires S::kConstantMass;
};

/// A constant mass matrix known only at run time (a user-defined system) that says whether it
/// is the identity: identity_mass() true means M^-1 x = x, so x may be used without a copy.
template <class S>
concept RuntimeIdentityMass = requires(const S& s) {
  { s.identity_mass() } -> std::convertible_to<bool>;
};

/// A reduced form on D* with an adapted frame ([Celledoni2019] §2): zeta = (q, rho), Pi(zeta),
/// H(zeta) (kHasReducedForm = true).
template <class S>
concept ReducedForm = requires {
  requires S::kHasReducedForm;
};

/// An explicit solution of the equations of motion in reduced coordinates (kHasExactFlow = true
/// and exact_flow()).
template <class S>
concept ExactFlow = requires {
  requires S::kHasExactFlow;
};

/// The MLA discretisation of the system's [AnahorySimoes2022] example (kHasMlaDiscretisation =
/// true).
template <class S>
concept HasMlaDiscretisation = requires {
  requires S::kHasMlaDiscretisation;
};

/// The M x SE(2) structure of [Kobilarov2010] §5 (kSE2Symmetry = true): shape variables and a
/// planar group part with a body-frame momentum map.
template <class S>
concept SE2Symmetry = requires {
  requires S::kSE2Symmetry;
};

/// Director coordinates of a rigid body ([Gebhardt2020] §3.5: q = (d1, d2, d3), kDirectorBody =
/// true).
template <class S>
concept DirectorCoordinates = requires {
  requires S::kDirectorBody;
};

/// d/dt mu(q) along q' = v: constraint_dot(q, v, dmu), for index-1 canonical formulations.
template <class S>
concept ConstraintDot = requires(const S& s, const typename S::VecQ& q, typename S::MatCQ& m) {
  s.constraint_dot(q, q, m);
};

/// d/dq (1/2 v^T M(q) v) at fixed v: kinetic_gradient(q, v, out), for a q-dependent M (the term
/// -1/2 v^T (dM/dq^i) v of [Celledoni2019] eq. (18a) without differences of M).
template <class S>
concept KineticGradient = requires(const S& s, const typename S::VecQ& q, typename S::VecQ& out) {
  s.kinetic_gradient(q, q, out);
};

/// mu(q) evaluates at a complex q (every catalogue system): derivatives of mu are then taken by
/// the complex step, Im mu(q + i e v) / e = (dmu/dq) v exactly to round-off for e = 1e-20
/// (no subtraction, so no cancellation).
template <class S>
concept ComplexStepConstraint = requires(const S& s, const Eigen::VectorXcd& q,
                                         Eigen::MatrixXcd& mu) {
  s.constraint(q, mu);
};

/// Holonomic constraints in the form GGL needs ([Kinon2023]): NG > 0 constraints
/// (holonomic_constraint, holonomic_jacobian) with constant Hessians contracted by
/// holonomic_hessian_contract (kQuadraticHolonomic = true), a constant mass matrix, and no
/// nonholonomic rows (NC == NG; for dynamic sizes the system checks at run time).
template <class S>
concept QuadraticHolonomicConstraints = HasHolonomicConstraints<S> && ConstantMass<S> &&
    requires(const S& s, const typename S::VecQ& q, typename S::MatGQ& gm) {
  s.holonomic_hessian_contract(q, gm);
  requires S::kQuadraticHolonomic;
  requires S::NG == S::NC;
};

}  // namespace nhsim
