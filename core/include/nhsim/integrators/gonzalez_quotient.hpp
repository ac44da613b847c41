// The correction coefficient of the Gonzalez (midpoint) discrete gradient, [Celledoni2019] eq.
// (12):
//   dbarH(z, z') = grad H(zbar) + c (z' - z),   c = [H(z') - H(z) - grad H(zbar).(z' - z)] / |z' -
//   z|^2,
// shared by `gonzalez`, `gonzalez_f` and `gonzalez_r`.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace nhsim {

/// c of eq. (12) from h1 = H(z'), h0 = H(z), gd = grad H(zbar).(z' - z), dd = |z' - z|^2,
/// zz = |zbar|^2 and gz = grad H(zbar).zbar; 0 (correction skipped) when the step is tiny,
/// dd <= 1e-12 max(1, zz), AND the numerator is at the round-off of its terms,
/// |h1 - h0 - gd| <= 8 eps (|h1| + |h0| + |gd| + |gz|) (dd = 0 included). |gz| stands for the
/// size of H's summands where H itself is small by cancellation (e.g. 2 x kinetic energy for a
/// quadratic term, |q3 V'(q3)| for a wound-up angle). Then skipping changes H(z') - H(z) -
/// dbarH.(z' - z) by round-off only, while the quotient would be that round-off amplified by 1/|z'
/// - z| and would stall Newton (near an equilibrium). The size test alone, without the numerator
/// test, skipped real corrections once a coordinate grew large (a wound-up angle, |q3| ~ 3e4 on the
/// gearbox of [Celledoni2019] §4.4, makes every step shorter than ~0.03 "tiny"): those steps were
/// plain midpoint steps with an O(h^3) energy error, and the energy drifted by up to 4e-4 over the
/// t = 50000 run of Fig. 4.
inline double gonzalez_coefficient(double h1, double h0, double gd, double dd, double zz,
                                   double gz) {
  const double num = h1 - h0 - gd;
  const double noise = 8.0 * std::numeric_limits<double>::epsilon() *
                       (std::abs(h1) + std::abs(h0) + std::abs(gd) + std::abs(gz));
  const bool tiny_step = dd <= 1e-12 * std::max(1.0, zz);
  if (dd <= 0.0 || (tiny_step && std::abs(num) <= noise)) return 0.0;
  return num / dd;
}

}  // namespace nhsim
