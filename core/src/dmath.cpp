// nhsim/dmath.hpp on SLEEF's deterministic scalar functions (cinz: "consistent, no FMA").
#include "nhsim/dmath.hpp"

#include <sleef.h>

namespace nhsim::dmath {

double sin(double x) noexcept { return Sleef_cinz_sind1_u10purec(x); }
double cos(double x) noexcept { return Sleef_cinz_cosd1_u10purec(x); }
SinCos<double> sincos(double x) noexcept {
  const auto r = Sleef_cinz_sincosd1_u10purec(x);
  return {r.x, r.y};
}
double tan(double x) noexcept { return Sleef_cinz_tand1_u10purec(x); }
double atan(double x) noexcept { return Sleef_cinz_atand1_u10purec(x); }
double atan2(double y, double x) noexcept { return Sleef_cinz_atan2d1_u10purec(y, x); }
double exp(double x) noexcept { return Sleef_cinz_expd1_u10purec(x); }
double log(double x) noexcept { return Sleef_cinz_logd1_u10purec(x); }
double log2(double x) noexcept { return Sleef_cinz_log2d1_u10purec(x); }
double pow(double x, double y) noexcept { return Sleef_cinz_powd1_u10purec(x, y); }
double sinh(double x) noexcept { return Sleef_cinz_sinhd1_u10purec(x); }
double cosh(double x) noexcept { return Sleef_cinz_coshd1_u10purec(x); }
double asinh(double x) noexcept { return Sleef_cinz_asinhd1_u10purec(x); }
double hypot(double x, double y) noexcept { return Sleef_cinz_hypotd1_u05purec(x, y); }

namespace {

struct CoshSinh {
  double cosh, sinh;
};

/// Below 2^-27, cosh b = 1 and sinh b = b (b^2 / 2 and b^2 / 6 are below half an ulp): the
/// complex step's imaginary parts, without two calls.
CoshSinh cosh_sinh(double b) noexcept {
  if (std::abs(b) < 0x1p-27) return {1.0, b};
  return {cosh(b), sinh(b)};
}

}  // namespace

SinCos<Complex> sincos(const Complex& z) noexcept {
  const SinCos<double> a = sincos(z.real());
  const CoshSinh b = cosh_sinh(z.imag());
  return {{a.sin * b.cosh, a.cos * b.sinh}, {a.cos * b.cosh, -(a.sin * b.sinh)}};
}

Complex sin(const Complex& z) noexcept { return sincos(z).sin; }
Complex cos(const Complex& z) noexcept { return sincos(z).cos; }

Complex tan(const Complex& z) noexcept {
  const SinCos<Complex> t = sincos(z);
  return t.sin / t.cos;
}

Complex exp(const Complex& z) noexcept {
  const double r = exp(z.real());
  const SinCos<double> b = sincos(z.imag());
  return {r * b.cos, r * b.sin};
}

Complex log(const Complex& z) noexcept {
  return {log(hypot(z.real(), z.imag())), atan2(z.imag(), z.real())};
}

Complex sqrt(const Complex& z) noexcept {
  const double a = z.real(), b = z.imag();
  if (a == 0.0 && b == 0.0) return {0.0, b};
  // t = sqrt((|a| + |z|) / 2) without cancellation; the other part is b / (2 t).
  const double t = std::sqrt(0.5 * (std::abs(a) + hypot(a, b)));
  if (a >= 0.0) return {t, b / (2.0 * t)};
  return {std::abs(b) / (2.0 * t), std::copysign(t, b)};
}

Complex pow(const Complex& z, const Complex& w) noexcept {
  if (z == Complex(0.0, 0.0)) return {0.0, 0.0};
  return exp(w * log(z));
}

}  // namespace nhsim::dmath
