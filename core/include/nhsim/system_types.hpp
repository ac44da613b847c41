// Sizes and Eigen types of a system, shared by the system headers: a system class derives from
// the one matching its structure and gets NQ, NC (, NR, NZ | NG) and the vector and matrix types
// the integrators use (S::VecQ, S::MatCQ, ...). Fixed sizes: the seed systems are small.
#pragma once

#include <Eigen/Dense>

namespace nhsim {

/// Canonical coordinates: q, p in R^NQ, NC constraint one-forms (the rows of mu(q)).
template <int NQ_, int NC_>
struct CanonicalTypes {
  static constexpr int NQ = NQ_;
  static constexpr int NC = NC_;
  using VecQ = Eigen::Matrix<double, NQ, 1>;
  using VecC = Eigen::Matrix<double, NC, 1>;
  using MatCQ = Eigen::Matrix<double, NC, NQ>;
  using MatQ = Eigen::Matrix<double, NQ, NQ>;
};

/// Canonical coordinates and a reduced form on D* (seed 001 §2): rho in R^NR, zeta = (q, rho)
/// in R^NZ, NZ = NQ + NR.
template <int NQ_, int NC_, int NR_>
struct ReducedTypes : CanonicalTypes<NQ_, NC_> {
  static constexpr int NR = NR_;
  static constexpr int NZ = NQ_ + NR_;
  using VecR = Eigen::Matrix<double, NR, 1>;
  using VecZ = Eigen::Matrix<double, NZ, 1>;
  using MatZ = Eigen::Matrix<double, NZ, NZ>;
};

/// Canonical coordinates with NG holonomic constraints g(q) = 0, G = Dg (seed 003, 004) among
/// the NC constraint rows.
template <int NQ_, int NG_, int NC_>
struct HolonomicTypes : CanonicalTypes<NQ_, NC_> {
  static constexpr int NG = NG_;
  using VecG = Eigen::Matrix<double, NG, 1>;
  using MatGQ = Eigen::Matrix<double, NG, NQ_>;
};

}  // namespace nhsim
