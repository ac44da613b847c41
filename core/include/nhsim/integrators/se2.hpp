// SE(2) maps of [Kobilarov2010] App. A-B for the RDP integrators: coordinates v = (v1, v2, v3) of
// se(2) (angular first: v-hat = [[0, -v1, v2], [v1, 0, v3], [0, 0, 0]]), the retractions
// tau = exp, cay : se(2) -> SE(2), and the matrices [dtau^-1_v] of the inverse right-trivialized
// tangents.
//   * exp: App. B closed form; for |v1| < 1e-4 the quotients sin(v1)/v1 and (1 - cos v1)/v1
//     are taken from their Taylor series (the printed v1 = 0 branch is their limit).
//   * cay: App. B closed form, with one correction: the printed rotation block has diagonal
//     ((v1)^2 - 4) / (4 + (v1)^2), which gives cay(0) = diag(-1, -1, 1); the Cayley map
//     (e - v/2)^-1 (e + v/2) has (4 - (v1)^2) / (4 + (v1)^2) there (tan of half the angle =
//     v1 / 2). The translation column is as printed.
//   * [dexp^-1_v] = I - 1/2 [ad_v] + 1/12 [ad_v]^2, eq. (42): the Bernoulli series (36)
//     truncated as printed (error O(|v|^3), so the RDP step keeps second order).
//   * [dcay^-1_v] = I - 1/2 [ad_v] + 1/4 [v1 v, 0_3x2], eq. (44), exact; it equals
//     (e - v/2) y (e + v/2) of eq. (37) (the test checks both against the right-trivialized
//     derivative of the map).
//   * [ad_v] = [[0, 0, 0], [v3, 0, -v1], [-v2, v1, 0]] (App. B).
#pragma once

#include <Eigen/Dense>
#include <cmath>

#include "nhsim/dmath.hpp"

namespace nhsim::se2 {

/// [ad_v], 3 x 3 (App. B).
inline Eigen::Matrix3d ad(const Eigen::Vector3d& v) {
  Eigen::Matrix3d m;
  m << 0.0, 0.0, 0.0, v(2), 0.0, -v(0), -v(1), v(0), 0.0;
  return m;
}

/// [dexp^-1_v] ~ I - ad/2 + ad^2/12, eq. (42).
inline Eigen::Matrix3d dexp_inv(const Eigen::Vector3d& v) {
  const Eigen::Matrix3d a = ad(v);
  return Eigen::Matrix3d::Identity() - 0.5 * a + (1.0 / 12.0) * (a * a);
}

/// [dcay^-1_v] = I - ad/2 + [v1 v, 0, 0] / 4, eq. (44).
inline Eigen::Matrix3d dcay_inv(const Eigen::Vector3d& v) {
  Eigen::Matrix3d m = Eigen::Matrix3d::Identity() - 0.5 * ad(v);
  m.col(0) += 0.25 * v(0) * v;
  return m;
}

/// A group element as (angle [rad], translation (tx, ty)).
struct Element {
  double angle = 0.0;
  double tx = 0.0;
  double ty = 0.0;
};

/// exp(v-hat) (App. B).
inline Element exp_map(const Eigen::Vector3d& v) {
  const double w = v(0);
  double s1, c1;  // sin(w) / w, (1 - cos w) / w
  if (std::abs(w) < 1e-4) {
    const double w2 = w * w;
    s1 = 1.0 - w2 / 6.0 + w2 * w2 / 120.0;
    c1 = w / 2.0 - w * w2 / 24.0;
  } else {
    const auto [s, c] = dmath::sincos(w);
    s1 = s / w;
    c1 = (1.0 - c) / w;
  }
  return {w, v(1) * s1 - v(2) * c1, v(1) * c1 + v(2) * s1};
}

/// cay(v-hat) (App. B, rotation block corrected, see the file comment).
inline Element cay_map(const Eigen::Vector3d& v) {
  const double w = v(0), d = 4.0 + w * w;
  return {2.0 * dmath::atan(0.5 * w), (4.0 * v(1) - 2.0 * w * v(2)) / d,
          (4.0 * v(2) + 2.0 * w * v(1)) / d};
}

/// The 3 x 3 homogeneous matrix of an element (eq. (41)).
inline Eigen::Matrix3d matrix(const Element& g) {
  Eigen::Matrix3d m;
  const auto [s, c] = dmath::sincos(g.angle);
  m << c, -s, g.tx, s, c, g.ty, 0.0, 0.0, 1.0;
  return m;
}

/// v-hat (App. B).
inline Eigen::Matrix3d hat(const Eigen::Vector3d& v) {
  Eigen::Matrix3d m;
  m << 0.0, -v(0), v(1), v(0), 0.0, v(2), 0.0, 0.0, 0.0;
  return m;
}

}  // namespace nhsim::se2
