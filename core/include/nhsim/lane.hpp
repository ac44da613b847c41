// Lane<W, Isa>: W doubles stepped as one value, one trajectory per lane (docs/design.md "Lanes").
//
// The integrators and systems are written once over their scalar type; instantiated with
// Lane<W, Isa> instead of double, the same code advances W trajectories per instruction. Every
// operation is elementwise and IEEE (+, -, *, /, each correctly rounded, no fused multiply-add:
// -ffp-contract=off), so lane l performs exactly the operations the scalar code performs on
// trajectory l, and its bits do not depend on W, on its neighbours or on the instruction set.
// Eigen treats a Lane as a scalar of its own (NumTraits below): it evaluates expressions
// coefficient by coefficient, never in packets, so reductions over lanes follow Eigen's scalar
// order; code that must agree with the double path keeps its sums explicit.
//
// Isa names the instruction set of the translation unit that steps the lanes (one unit per
// instruction set, each compiled with its own -m flags: core/src/lanes/method_kernels_*.cpp).
// Being part of every type over the lanes, it makes every function instantiated over them that
// unit's own, so the linker never merges an AVX2 copy of a function into baseline code.
#pragma once

#include <Eigen/Core>
#include <cstdint>

namespace nhsim {

/// Instruction-set tags (Lane's Isa).
struct IsaBaseline;
struct IsaAvx2;
struct IsaAvx512;

template <int W, class Isa>
struct Lane {
  static_assert(W >= 1 && W <= 8, "lanes of 1 to 8 doubles");
  /// GCC/Clang vector extension: split into the registers of the function's instruction set.
  /// Aligned as a double: Eigen aligns its fixed-size arrays to 16 bytes at most, and less than
  /// a type's own alignment is an error.
  typedef double V __attribute__((vector_size(8 * W), aligned(8)));
  V v;

  Lane() = default;
  /// The same value in every lane.
  Lane(double x) : v(V{} + x) {}  // NOLINT(google-explicit-constructor): a scalar's literal
  static Lane of(const V& x) {
    Lane r;
    r.v = x;
    return r;
  }
  double get(int lane) const { return v[lane]; }
  void set(int lane, double x) { v[lane] = x; }

  Lane& operator+=(const Lane& o) {
    v += o.v;
    return *this;
  }
  Lane& operator-=(const Lane& o) {
    v -= o.v;
    return *this;
  }
  Lane& operator*=(const Lane& o) {
    v *= o.v;
    return *this;
  }
  Lane& operator/=(const Lane& o) {
    v /= o.v;
    return *this;
  }
  friend Lane operator+(const Lane& a, const Lane& b) { return of(a.v + b.v); }
  friend Lane operator-(const Lane& a, const Lane& b) { return of(a.v - b.v); }
  friend Lane operator*(const Lane& a, const Lane& b) { return of(a.v * b.v); }
  friend Lane operator/(const Lane& a, const Lane& b) { return of(a.v / b.v); }
  friend Lane operator-(const Lane& a) { return of(-a.v); }
  friend Lane operator+(double a, const Lane& b) { return of(a + b.v); }
  friend Lane operator+(const Lane& a, double b) { return of(a.v + b); }
  friend Lane operator-(double a, const Lane& b) { return of(a - b.v); }
  friend Lane operator-(const Lane& a, double b) { return of(a.v - b); }
  friend Lane operator*(double a, const Lane& b) { return of(a * b.v); }
  friend Lane operator*(const Lane& a, double b) { return of(a.v * b); }
  friend Lane operator/(double a, const Lane& b) { return of(a / b.v); }
  friend Lane operator/(const Lane& a, double b) { return of(a.v / b); }
};

}  // namespace nhsim

namespace Eigen {

template <int W, class Isa>
struct NumTraits<nhsim::Lane<W, Isa>> : NumTraits<double> {
  typedef nhsim::Lane<W, Isa> Real;
  typedef nhsim::Lane<W, Isa> NonInteger;
  typedef nhsim::Lane<W, Isa> Nested;
  typedef nhsim::Lane<W, Isa> Literal;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 0,
    ReadCost = 1,
    AddCost = 1,
    MulCost = 1
  };
};
/// A double (a step size, a coefficient) times a lane vector is a lane vector.
template <int W, class Isa, typename Op>
struct ScalarBinaryOpTraits<nhsim::Lane<W, Isa>, double, Op> {
  typedef nhsim::Lane<W, Isa> ReturnType;
};
template <int W, class Isa, typename Op>
struct ScalarBinaryOpTraits<double, nhsim::Lane<W, Isa>, Op> {
  typedef nhsim::Lane<W, Isa> ReturnType;
};

}  // namespace Eigen
