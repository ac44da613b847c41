// Sizes and Eigen types of a system, shared by the system headers: a system class derives from
// the one matching its structure and gets NQ, NC (, NR, NZ | NG) and the vector and matrix types
// the integrators use (S::VecQ, S::MatCQ, ...). Fixed sizes: the seed systems are small.
#pragma once

#include <Eigen/Dense>
#include <type_traits>

namespace nhsim {

/// R x C doubles with room for MR x MC (Eigen's MaxRows and MaxCols): a dynamic size with a
/// fixed capacity is stored inline, without heap memory. With MR = R and MC = C this is
/// Eigen::Matrix<double, R, C> itself (the same storage order Eigen picks by default).
/// T is the scalar: double, or Lane<W> for W trajectories at once (nhsim/lane.hpp).
template <int R, int C, int MR = R, int MC = C, class T = double>
using CapacityMatrix =
    Eigen::Matrix<T, R, C, (R == 1 && C != 1) ? Eigen::RowMajor : Eigen::ColMajor, MR, MC>;
static_assert(std::is_same_v<CapacityMatrix<1, 3>, Eigen::Matrix<double, 1, 3>>);
static_assert(std::is_same_v<CapacityMatrix<3, 1>, Eigen::Matrix<double, 3, 1>>);
static_assert(std::is_same_v<CapacityMatrix<2, 4>, Eigen::Matrix<double, 2, 4>>);
static_assert(std::is_same_v<CapacityMatrix<Eigen::Dynamic, Eigen::Dynamic>, Eigen::MatrixXd>);

/// Canonical coordinates: q, p in R^NQ, NC constraint one-forms (the rows of mu(q)). A system of
/// dynamic sizes (NQ = NC = Eigen::Dynamic) may bound them by MaxNQ and MaxNC: its vectors and
/// matrices, and those the integrators build over its sizes (capacity_nq(), capacity_nc()),
/// are then stored inline.
template <int NQ_, int NC_, int MaxNQ_ = NQ_, int MaxNC_ = NC_>
struct CanonicalTypes {
  static constexpr int NQ = NQ_;
  static constexpr int NC = NC_;
  static constexpr int kMaxNQ = MaxNQ_;
  static constexpr int kMaxNC = MaxNC_;
  using VecQ = CapacityMatrix<NQ, 1, kMaxNQ, 1>;
  using VecC = CapacityMatrix<NC, 1, kMaxNC, 1>;
  using MatCQ = CapacityMatrix<NC, NQ, kMaxNC, kMaxNQ>;
  using MatQ = CapacityMatrix<NQ, NQ, kMaxNQ, kMaxNQ>;
};

/// The capacity of system S's dimensions: S::kMaxNQ and S::kMaxNC where it declares them
/// (CanonicalTypes), else its sizes (fixed, or Eigen::Dynamic: unbounded, on the heap).
template <class S>
constexpr int capacity_nq() {
  if constexpr (requires { S::kMaxNQ; }) {
    return S::kMaxNQ;
  } else {
    return S::NQ;
  }
}
template <class S>
constexpr int capacity_nc() {
  if constexpr (requires { S::kMaxNC; }) {
    return S::kMaxNC;
  } else {
    return S::NC;
  }
}

/// The scalar type of system S's vectors: S::Scalar where it declares one (OverLanes,
/// nhsim/over_lanes.hpp), else double.
template <class S>
struct ScalarOf {
  using type = double;
};
template <class S>
requires requires { typename S::Scalar; }
struct ScalarOf<S> {
  using type = typename S::Scalar;
};
template <class S>
using ScalarOfT = typename ScalarOf<S>::type;

/// The integrators' matrices over a system's constraint algebra: nc x nc (mu M^-1 mu^T) and
/// nq x nc (M^-1 mu^T), with the system's capacity and scalar.
template <class S>
using MatCOf = CapacityMatrix<S::NC, S::NC, capacity_nc<S>(), capacity_nc<S>(), ScalarOfT<S>>;
template <class S>
using MatQCOf = CapacityMatrix<S::NQ, S::NC, capacity_nq<S>(), capacity_nc<S>(), ScalarOfT<S>>;

/// Canonical coordinates and a reduced form on D* ([Celledoni2019] §2): rho in R^NR, zeta = (q,
/// rho) in R^NZ, NZ = NQ + NR.
template <int NQ_, int NC_, int NR_>
struct ReducedTypes : CanonicalTypes<NQ_, NC_> {
  static constexpr int NR = NR_;
  static constexpr int NZ = NQ_ + NR_;
  using VecR = Eigen::Matrix<double, NR, 1>;
  using VecZ = Eigen::Matrix<double, NZ, 1>;
  using MatZ = Eigen::Matrix<double, NZ, NZ>;
};

/// Canonical coordinates with NG holonomic constraints g(q) = 0, G = Dg ([Kinon2023],
/// [Gebhardt2020]) among the NC constraint rows.
template <int NQ_, int NG_, int NC_>
struct HolonomicTypes : CanonicalTypes<NQ_, NC_> {
  static constexpr int NG = NG_;
  using VecG = Eigen::Matrix<double, NG, 1>;
  using MatGQ = Eigen::Matrix<double, NG, NQ_>;
};

/// V(q) = 0 [J] and dV/dq = 0, for a system without a potential (the free particle, the sleighs,
/// the rolling disk, the snakeboard, the director bodies without load, the Suslov problem).
struct ZeroPotential {
  template <class VQ>
  double potential(const VQ& /*q*/) const {
    return 0.0;
  }
  template <class VQ, class Out>
  void grad_potential(const VQ& /*q*/, Out& g) const {
    g.setZero();
  }
};

/// M = I, constant (kConstantMass, kIdentityMass): the canonical momenta are the velocities.
struct IdentityMass {
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = true;
  /// v = M^-1 p = p (v, p of length nq).
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    v = p;
  }
  /// M = I, nq x nq (q of length nq).
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& q) const {
    return Eigen::MatrixXd::Identity(q.size(), q.size());
  }
};

}  // namespace nhsim
