// Elementary functions whose results do not depend on the CPU.
//
// glibc's libm picks FMA/AVX2 or generic code paths at load time, and the two round differently
// on a few inputs in 1000 (sin, cos, exp, log, atan2, pow: only sqrt agrees), so a trajectory's
// bits depended on the machine that ran it. Every elementary function that a trajectory, a
// generator or a statistic evaluates comes from here instead: SLEEF's deterministic scalar
// functions (`Sleef_cinz_*d1_u10purec`, Debian's libsleef-dev; [Shibata2020]), written in C
// without FMA and bitwise the same on every platform, whatever the CPU or GLIBC_TUNABLES.
// Accuracy: within 1.0 ulp (u10; hypot 0.5); sqrt stays IEEE's correctly rounded one. Cost per
// call on these machines: docs/performance-math.md.
//
// The complex overloads serve the complex-step derivative (nhsim/complex_step.hpp) and the
// custom-system tape at complex arguments; they are the textbook formulas in these functions.
#pragma once

#include <cmath>
#include <complex>

namespace nhsim::dmath {

double sin(double x) noexcept;
double cos(double x) noexcept;

/// sin x and cos x from one argument reduction: at the cost of one sin. Not always the bits of
/// sin() and cos() (1 ulp apart on about 8 % of arguments).
template <class T>
struct SinCos {
  T sin, cos;
};
SinCos<double> sincos(double x) noexcept;

double tan(double x) noexcept;
double atan(double x) noexcept;
/// atan2(y, x) in [-pi, pi].
double atan2(double y, double x) noexcept;
double exp(double x) noexcept;
double log(double x) noexcept;
double log2(double x) noexcept;
double pow(double x, double y) noexcept;
double sinh(double x) noexcept;
double cosh(double x) noexcept;
double asinh(double x) noexcept;
/// sqrt(x^2 + y^2) without overflow (0.5 ulp).
double hypot(double x, double y) noexcept;
inline double sqrt(double x) noexcept { return std::sqrt(x); }  // IEEE: the same on every CPU

using Complex = std::complex<double>;

/// sin(a + ib) = sin a cosh b + i cos a sinh b (cosh b = 1, sinh b = b exactly for |b| < 2^-27,
/// as in the complex step).
Complex sin(const Complex& z) noexcept;
/// cos(a + ib) = cos a cosh b - i sin a sinh b.
Complex cos(const Complex& z) noexcept;
/// sin z and cos z, as sin() and cos() give them.
SinCos<Complex> sincos(const Complex& z) noexcept;
/// sin z / cos z.
Complex tan(const Complex& z) noexcept;
/// exp(a + ib) = e^a (cos b + i sin b).
Complex exp(const Complex& z) noexcept;
/// The principal branch: log |z| + i arg z.
Complex log(const Complex& z) noexcept;
/// The principal branch (Re >= 0), cut along the negative real axis.
Complex sqrt(const Complex& z) noexcept;
/// exp(w log z); 0^w = 0.
Complex pow(const Complex& z, const Complex& w) noexcept;

}  // namespace nhsim::dmath

namespace nhsim {
template <int W, class Isa>
struct Lane;  // nhsim/lane.hpp
}  // namespace nhsim

namespace nhsim::dmath {

/// The functions above of W lanes at once (nhsim/lane.hpp), each lane bitwise the scalar
/// function's value: SLEEF's consistent (cinz) vector functions of the lanes' instruction set,
/// which give the bits of the scalar ones. Defined in core/src/lanes/lane_math.hpp, for the lane
/// units only (not noexcept: a terminate handler would be code shared across the units).
template <int W, class Isa>
Lane<W, Isa> sin(const Lane<W, Isa>& x);
template <int W, class Isa>
Lane<W, Isa> cos(const Lane<W, Isa>& x);
template <int W, class Isa>
SinCos<Lane<W, Isa>> sincos(const Lane<W, Isa>& x);
template <int W, class Isa>
Lane<W, Isa> sqrt(const Lane<W, Isa>& x);
template <int W, class Isa>
Lane<W, Isa> tan(const Lane<W, Isa>& x);
template <int W, class Isa>
Lane<W, Isa> exp(const Lane<W, Isa>& x);
template <int W, class Isa>
Lane<W, Isa> log(const Lane<W, Isa>& x);
template <int W, class Isa>
Lane<W, Isa> pow(const Lane<W, Isa>& x, const Lane<W, Isa>& y);

}  // namespace nhsim::dmath
