// A user-defined system (docs/custom-systems.md): the canonical form M, V(q), mu(q) and control
// forces of a CustomSystemDefinition (nhsim/custom/definition.hpp), evaluated by its register
// tapes.
//
// Sizes are template parameters so the integrators get the same fixed-size Eigen types as for a
// catalogue system; the library compiles the fixed sizes of kCustomFixedSizes and, for every other
// size, CustomSystem<Eigen::Dynamic, Eigen::Dynamic> (CustomSystemTypes below). With a constant
// mass matrix (CustomKind::kConstantMass, kConstantMass) every canonical-form method with that
// requirement applies: si_dla, gonzalez_f, avf_f, i_dla, gonzalez_r, gonzalez_r_fd, spark2, dla,
// nh_rattle, nh_rattle_projected and rk2. With a q-dependent M (CustomKind::kVaryingMass, dynamic
// size only) gonzalez_r and gonzalez_r_fd apply, as on the catalogue's Chaplygin sleigh. With
// control forces (CustomKind::kControlled, dynamic size only; kHasControls) the methods that take
// them: nh_rattle, nh_rattle_projected and rk2, as on the snakeboard. Holonomic constraints g(q)
// run on the dynamic-size type with a constant mass matrix (NG = Eigen::Dynamic, ng() from the
// definition, possibly 0): mu = [G; nonholonomic rows] for the canonical methods, and ggl where
// custom_integrator_problem() admits the definition (constant Hessians, no nonholonomic rows),
// as on the catalogue's gyroscopic top. No reduced form
// (gonzalez_r builds the adapted frame by QR from mu, [Celledoni2019] §3.3), so gonzalez, avf,
// itoh_abe, midpoint and rk4 do not.
//
// Derivatives: dV/dq is the symbolic gradient (its own tape); dmu/dq, where an integrator needs
// it (gonzalez_r, rk2), is taken by the complex step on mu's tape evaluated at complex q, exact
// to round-off (ComplexStepConstraint, nhsim/complex_step.hpp); d/dq (1/2 v^T M(q) v) is
// symbolic (its own tape, KineticGradient).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nhsim/controls.hpp"
#include "nhsim/custom/definition.hpp"
#include "nhsim/eigen_util.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The sizes of a user-defined system's holonomic constraints ([Kinon2023] eq. (1)): as many as its
/// definition has, up to one fewer than kMaxCustomCoordinates, stored inline.
struct CustomHolonomicTypes {
  static constexpr int NG = Eigen::Dynamic;
  static constexpr int kMaxNG = kMaxCustomCoordinates - 1;
  using VecG = CapacityMatrix<Eigen::Dynamic, 1, kMaxNG, 1>;
  using MatGQ = CapacityMatrix<Eigen::Dynamic, Eigen::Dynamic, kMaxNG, kMaxCustomCoordinates>;
};

/// No holonomic constraints (the fixed-size types and the other kinds).
struct NoHolonomicTypes {};

/// Whether CustomSystem<NQ, NC, MF> runs holonomic constraints: the dynamic size with a constant
/// mass matrix and no control forces.
template <int NQ, CustomKind MF>
inline constexpr bool kCustomHolonomic = (NQ == Eigen::Dynamic) &&
                                         (MF == CustomKind::kConstantMass);

/// A user-defined system with NQ coordinates and NC constraint rows (Eigen::Dynamic for both: any
/// size up to kMaxCustomCoordinates, taken from the definition, in vectors and matrices of that
/// capacity, so that stepping takes no heap memory at any size), of the kind MF. Construct from a
/// compiled definition of those sizes and that kind (else std::invalid_argument). Copies share the
/// definition.
template <int NQ_, int NC_, CustomKind MF = CustomKind::kConstantMass>
class CustomSystem
    : public CanonicalTypes<NQ_, NC_, NQ_ == Eigen::Dynamic ? kMaxCustomCoordinates : NQ_,
                            NC_ == Eigen::Dynamic ? kMaxCustomCoordinates - 1 : NC_>,
      public std::conditional_t<kCustomHolonomic<NQ_, MF>, CustomHolonomicTypes, NoHolonomicTypes> {
 public:
  using Base = CanonicalTypes<NQ_, NC_, NQ_ == Eigen::Dynamic ? kMaxCustomCoordinates : NQ_,
                              NC_ == Eigen::Dynamic ? kMaxCustomCoordinates - 1 : NC_>;
  using Base::NC;
  using Base::NQ;
  using typename Base::MatCQ;
  using typename Base::MatQ;
  using typename Base::VecQ;
  static constexpr bool kConstantMass = MF != CustomKind::kVaryingMass;
  /// Control forces b_j(q) u_j(t) (nhsim/controls.hpp): only the methods that take them apply.
  static constexpr bool kHasControls = MF == CustomKind::kControlled;
  /// M may be any positive definite matrix: the integrators multiply by M^-1.
  static constexpr bool kIdentityMass = false;
  /// Holonomic constraints g(q) (their number ng() from the definition, possibly 0).
  static constexpr bool kHolonomic = kCustomHolonomic<NQ_, MF>;
  /// holonomic_hessian_contract() is exact where ggl runs: custom_integrator_problem() admits
  /// ggl only for constant Hessians.
  static constexpr bool kQuadraticHolonomic = kHolonomic;
  static_assert((NQ == Eigen::Dynamic) == (NC == Eigen::Dynamic), "both sizes fixed or neither");

  explicit CustomSystem(std::shared_ptr<const CustomSystemDefinition> def) : def_(std::move(def)) {
    const bool sizes_ok = def_ &&
                          (NQ == Eigen::Dynamic ? def_->nq <= kMaxCustomCoordinates
                                                : def_->nq == NQ && def_->nc == NC) &&
                          (kHolonomic || def_->ng == 0);
    if (!sizes_ok) {
      throw std::invalid_argument("CustomSystem: definition of another size");
    }
    if (def_->kind() != MF) {
      throw std::invalid_argument("CustomSystem: definition of another kind");
    }
    if constexpr (!kConstantMass) return;
    m_ = def_->mass;
    minv_ = def_->mass_inverse;
    minv_diagonal_ = minv_.diagonal();
    const bool diagonal = minv_.isDiagonal(0.0);
    mass_kind_ = !diagonal               ? MassKind::kGeneral
                 : minv_.isIdentity(0.0) ? MassKind::kIdentity
                                         : MassKind::kDiagonal;
  }

  CustomSystem(const CustomSystem&) = default;
  CustomSystem& operator=(const CustomSystem&) = default;
  /// Defined in core/src/custom/custom_system.cpp: the lane units (core/src/lanes/) destroy their
  /// copies of a system without compiling the definition's reference count in their instruction
  /// set (tests/core/check-lane-objects).
  ~CustomSystem();

  int nq() const {
    if constexpr (NQ == Eigen::Dynamic) return def_->nq;
    return NQ;
  }
  int nc() const {
    if constexpr (NC == Eigen::Dynamic) return def_->nc;
    return NC;
  }
  const CustomSystemDefinition& definition() const { return *def_; }

  /// V(q) [the user's energy unit]; q of length NQ, of doubles or lanes (nhsim/lane.hpp).
  template <class VQ>
  typename VQ::Scalar potential(const VQ& q) const {
    using T = typename VQ::Scalar;
    T buffer[kQ], v;
    def_->potential.evaluate(inputs(q, buffer), &v);
    return v;
  }

  /// g = dV/dq (length NQ), from the symbolic gradient.
  template <class VQ, class Out>
  void grad_potential(const VQ& q, Out& g) const {
    using T = typename VQ::Scalar;
    T buffer[kQ];
    const T* in = inputs(q, buffer);
    if constexpr (std::is_same_v<Out, Eigen::Matrix<T, NQ, 1, Eigen::ColMajor, kQ, 1>>) {
      def_->grad_potential.evaluate(in, g.data());
    } else {
      T out[kQ];
      def_->grad_potential.evaluate(in, out);
      for (int i = 0; i < nq(); ++i) g(i) = out[i];
    }
  }

  /// v = M^-1 p (length NQ): a copy for M = I and a scaling for a diagonal M (the same values
  /// as the product, which adds only zeros), else the product; for a q-dependent M, the
  /// Cholesky solve with M(q).
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& q, const VP& p, Out& v) const {
    if constexpr (!kConstantMass) {
      MatQ m(nq(), nq());
      mass_matrix(q, m);
      v = Eigen::LLT<MatQ>(m).solve(VecQ(p));
      return;
    }
    switch (mass_kind_) {
      case MassKind::kIdentity:
        v = p;
        return;
      case MassKind::kDiagonal:
        v = minv_diagonal_.cwiseProduct(p);
        return;
      case MassKind::kGeneral:
        if constexpr (std::is_same_v<typename VP::Scalar, double>) {
          v.noalias() = minv_ * p;
        } else {  // over lanes, which run a diagonal M only (core/src/lanes/lane_block.hpp)
          ordered_product(minv_, p, v);
        }
        return;
    }
  }

  /// True when M is the identity (RuntimeIdentityMass): integrators may skip M^-1 products.
  bool identity_mass() const { return kConstantMass && mass_kind_ == MassKind::kIdentity; }
  /// True when M is constant and diagonal (the identity included): inv_mass_times() then sums
  /// nothing, so it has the same bits over lanes as for doubles (core/src/lanes/lane_block.hpp).
  bool diagonal_mass() const { return kConstantMass && mass_kind_ != MassKind::kGeneral; }

  /// M(q), NQ x NQ, into mm (sized NQ x NQ), without heap memory; from M's tape (a
  /// q-dependent M only: gonzalez_r evaluates it in its steps).
  template <class VQ>
  void mass_matrix(const VQ& q, MatQ& mm) const requires(!kConstantMass) {
    double buffer[kQ];
    def_->mass_entries.evaluate(inputs(q, buffer), mm.data());  // symmetric: either layout
  }

  /// M(q), NQ x NQ.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& q) const {
    if constexpr (kConstantMass) {
      return m_;
    } else {
      MatQ mm(nq(), nq());
      mass_matrix(q, mm);
      return mm;
    }
  }

  /// out = d/dq (1/2 v^T M(q) v) (length NQ), from its symbolic tape: the term
  /// -1/2 v^T (dM/dq^i) v of gonzalez_r's grad H ([Celledoni2019] eq. (18a)). A q-dependent M only.
  template <class VQ, class VV, class Out>
  void kinetic_gradient(const VQ& q, const VV& v, Out& out) const requires(!kConstantMass) {
    double in[2 * kQ], buffer[kQ];
    def_->kinetic_gradient.evaluate(pair_inputs(q, v, in), buffer);
    for (int i = 0; i < nq(); ++i) out(i) = buffer[i];
  }

  /// H(q, p) = 1/2 p^T M(q)^-1 p + V(q).
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    const VecQ pp = p;
    return 0.5 * pp.dot(velocity(q, pp)) + potential(q);
  }

  /// mu(q), NC x NQ; q real or complex (the complex step of gonzalez_r and rk2), mu of the same
  /// scalar type.
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    using T = typename VQ::Scalar;
    T buffer[kQ];
    const T* in = inputs(q, buffer);
    // The tape writes mu row by row: straight into a row-major NC x NQ matrix (every MatCQ
    // with NC = 1 is one), else through a buffer.
    if constexpr (std::is_same_v<Out, Eigen::Matrix<T, NC, NQ, Eigen::RowMajor>>) {
      def_->constraint.evaluate(in, mu.data());
    } else {
      rows_from(def_->constraint, in, nc(), mu);
    }
  }

  /// max_alpha |mu^alpha(q) M^-1 p|.
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    MatCQ mu(nc(), nq());
    constraint(q, mu);
    return (mu * velocity(q, VecQ(p))).cwiseAbs().maxCoeff();
  }

  /// The number of holonomic constraints g(q) = 0 (0 for none).
  int ng() const requires(kHolonomic) { return def_->ng; }

  /// g(q), length ng(), into g (sized ng()).
  template <class VQ, class Out>
  void holonomic_constraint(const VQ& q, Out& g) const requires(kHolonomic) {
    double buffer[kQ], out[kC];
    def_->holonomic.evaluate(inputs(q, buffer), out);
    for (int k = 0; k < ng(); ++k) g(k) = out[k];
  }

  /// G(q) = dg/dq, ng() x NQ, into gm (sized so): the first ng() rows of mu(q).
  template <class VQ, class Out>
  void holonomic_jacobian(const VQ& q, Out& gm) const requires(kHolonomic) {
    double buffer[kQ];
    rows_from(def_->holonomic_jacobian, inputs(q, buffer), ng(), gm);
  }

  /// Rows (D^2 g_k w)^T, ng() x NQ, into out (sized so), for constant Hessians (ggl,
  /// nhsim/integrators/ggl.hpp; custom_integrator_problem() refuses ggl otherwise).
  template <class VW, class Out>
  void holonomic_hessian_contract(const VW& w, Out& out) const requires(kHolonomic) {
    double buffer[kQ];
    rows_from(def_->holonomic_hessian_contract, inputs(w, buffer), ng(), out);
  }

  /// Why integrator `id` does not apply to this definition although it applies to the type
  /// (custom_integrator_problem()); std::nullopt when it does. ModelImpl asks before stepping.
  std::optional<std::string> integrator_problem(const std::string& id) const {
    return custom_integrator_problem(*def_, id);
  }

  /// Why the definition does not admit q (mu(q) not of full row rank); std::nullopt when it
  /// does. The ensemble asks at each generated initial state.
  std::optional<std::string> state_problem(const Eigen::VectorXd& q) const {
    return custom_state_problem(*def_, q);
  }

  /// The named invariants of the definition, sampled as observables under these names.
  const std::vector<std::string>& observable_names() const { return def_->invariant_names; }

  /// Invariant k (0 <= k < observable_names().size()) at (q, p), from the invariants' tape.
  template <class VQ, class VP>
  double observable(int k, const VQ& q, const VP& p) const {
    double in[2 * kQ], out[kMaxCustomInvariants];
    def_->invariants.evaluate(pair_inputs(q, p, in), out);
    return out[k];
  }

  /// Binds u_j(t) to the definition's nu control inputs; empty = all zero. Throws SpecError
  /// ("controls", ...: validate_controls()).
  void set_controls(const std::vector<ControlSpec>& controls) requires(kHasControls) {
    validate_controls(controls, def_->nu, "custom_system");
    for (int j = 0; j < def_->nu; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      u_[uj] = controls.empty() ? ControlSignal() : ControlSignal(controls[uj]);
    }
  }

  /// f(q, t) = sum_j b_j(q) u_j(t) - dV/dq (length NQ), [Kobilarov2010] §4.2.
  template <class VQ, class Out>
  void applied_force(const VQ& q, double t, Out& f) const requires(kHasControls) {
    grad_potential(q, f);
    f = -f;
    double buffer[kQ], b[kMaxCustomInputs * kQ];
    def_->control_forces.evaluate(inputs(q, buffer), b);
    const int n = nq();
    for (int j = 0; j < def_->nu; ++j) {
      const double uj = u_[static_cast<std::size_t>(j)](t);
      for (int i = 0; i < n; ++i) f(i) += b[j * n + i] * uj;
    }
  }

  /// Whether si_dla may solve its multiplier equation in one linear step (checked
  /// symbolically by compile_custom_system; nhsim/integrators/si_dla.hpp).
  bool si_dla_constraint_affine() const { return def_->constraint_affine_along_forces; }

 private:
  /// Room for q and for mu's entries in the evaluators' stack buffers.
  static constexpr int kQ = Base::kMaxNQ;
  static constexpr int kC = Base::kMaxNC;

  /// The tape's inputs: q's own storage when q is a plain vector of q's size, else a copy of q
  /// in `buffer` (length kQ).
  template <class VQ, class T>
  const T* inputs(const VQ& q, T* buffer) const {
    if constexpr (std::is_same_v<VQ, Eigen::Matrix<T, NQ, 1, Eigen::ColMajor, kQ, 1>>) {
      return q.data();
    } else {
      for (int i = 0; i < nq(); ++i) buffer[i] = q(i);
      return buffer;
    }
  }

  /// The inputs of a tape over (q, x) (x = v or p): q then x in `in` (length 2 kQ).
  template <class VQ, class VX>
  const double* pair_inputs(const VQ& q, const VX& x, double* in) const {
    const int n = nq();
    for (int i = 0; i < n; ++i) {
      in[i] = q(i);
      in[n + i] = x(i);
    }
    return in;
  }

  /// The `rows` x NQ outputs of `tape` at `in` (row-major; real or complex) into m.
  template <class T, class Out>
  void rows_from(const custom::Tape& tape, const T* in, int rows, Out& m) const {
    T out[kC * kQ];
    tape.evaluate(in, out);
    const int n = nq();
    for (int a = 0; a < rows; ++a) {
      for (int j = 0; j < n; ++j) m(a, j) = out[a * n + j];
    }
  }

  /// M^-1 p for the observables: the product with the constant M^-1, or the solve with M(q).
  template <class VQ>
  VecQ velocity(const VQ& q, const VecQ& p) const {
    if constexpr (kConstantMass) {
      return minv_ * p;
    } else {
      VecQ v(nq());
      inv_mass_times(q, p, v);
      return v;
    }
  }

  enum class MassKind { kIdentity, kDiagonal, kGeneral };

  std::shared_ptr<const CustomSystemDefinition> def_;
  MatQ m_;
  MatQ minv_;
  VecQ minv_diagonal_;
  MassKind mass_kind_ = MassKind::kGeneral;
  /// u_j(t), j < nu, for a kind with control forces; nothing otherwise.
  struct NoControls {};
  [[no_unique_address]] std::conditional_t<kHasControls,
                                           std::array<ControlSignal, kMaxCustomInputs>, NoControls>
      u_{};
};

/// The system types of user-defined systems, each compiled with every integrator that applies to
/// it in pair units of their own (core/src/pairs.cpp.in; editing this header recompiles those
/// alone): one per fixed size of kCustomFixedSizes, the dynamic size, and the dynamic-size kinds
/// with a varying mass matrix and with control forces.
template <class Sizes>
struct CustomFixedSizeTypesOf;
template <std::size_t... i>
struct CustomFixedSizeTypesOf<std::index_sequence<i...>> {
  using type = std::tuple<CustomSystem<kCustomFixedSizes[i].first, kCustomFixedSizes[i].second>...>;
};
using CustomSystemTypes = decltype(std::tuple_cat(
    std::declval<typename CustomFixedSizeTypesOf<
        std::make_index_sequence<std::size(kCustomFixedSizes)>>::type>(),
    std::declval<
        std::tuple<CustomSystem<Eigen::Dynamic, Eigen::Dynamic>,
                   CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kVaryingMass>,
                   CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kControlled>>>()));

}  // namespace nhsim
