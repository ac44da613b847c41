// Internal: the interpreter of the register tape (nhsim/custom/tape.hpp), Tape::evaluate<T> for
// any T with the operations of double: double and std::complex<double> (compiled in tape.cpp) and
// Lane<W, Isa> (compiled in the lane units, core/src/lanes/method_block.hpp, whose Lane
// functions come from lane_math.hpp). A Lane performs each operation elementwise with the bits of
// the double one, so lane l of a lane evaluation is the double evaluation at lane l's inputs.
//
// The executed form puts every constant in one block after the inputs, so an evaluation copies
// the inputs and the constants and dispatches only the operations that depend on the inputs.
// The operations and their order are those of the compiled tape, so the results are too.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <new>

#include "nhsim/custom/tape.hpp"
#include "nhsim/dmath.hpp"
#include "nhsim/lane.hpp"

namespace nhsim::custom {

namespace tape_ops {

inline double sign_of(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }
inline double abs_of(double x) { return std::abs(x); }
inline std::complex<double> sign_of(const std::complex<double>& z) { return sign_of(z.real()); }
inline std::complex<double> abs_of(const std::complex<double>& z) {
  return z.real() < 0.0 ? -z : z;
}
template <int W, class Isa>
Lane<W, Isa> sign_of(const Lane<W, Isa>& x) {
  Lane<W, Isa> r;
  for (int l = 0; l < W; ++l) r.set(l, sign_of(x.get(l)));
  return r;
}
template <int W, class Isa>
Lane<W, Isa> abs_of(const Lane<W, Isa>& x) {
  Lane<W, Isa> r;
  for (int l = 0; l < W; ++l) r.set(l, std::abs(x.get(l)));
  return r;
}

/// Registers of the small register file: 256 values, no stack probing for doubles.
constexpr int kSmallRegisters = 256;

}  // namespace tape_ops

template <class T>
void Tape::gather(const T* in, T* out) const {
  const std::size_t n = output_registers_.size();
  const auto nin = static_cast<std::uint16_t>(num_inputs_);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint16_t o = output_registers_[k];
    out[k] = o < nin ? in[o] : T(constants_[o - nin]);
  }
}

template <class T>
void Tape::run(const T* in, T* out, T* r) const {
  for (int i = 0; i < num_inputs_; ++i) ::new (static_cast<void*>(r + i)) T(in[i]);
  T* w = r + num_inputs_;
  for (const double c : constants_) ::new (static_cast<void*>(w++)) T(c);
  for (const Step& s : steps_) {
    T x;
    switch (s.op) {
      case TapeOp::kAdd:
        x = r[s.a] + r[s.b];
        break;
      case TapeOp::kSub:
        x = r[s.a] - r[s.b];
        break;
      case TapeOp::kMul:
        x = r[s.a] * r[s.b];
        break;
      case TapeOp::kDiv:
        x = r[s.a] / r[s.b];
        break;
      case TapeOp::kNeg:
        x = -r[s.a];
        break;
      case TapeOp::kSin:
        x = dmath::sin(r[s.a]);
        break;
      case TapeOp::kCos:
        x = dmath::cos(r[s.a]);
        break;
      case TapeOp::kTan:
        x = dmath::tan(r[s.a]);
        break;
      case TapeOp::kExp:
        x = dmath::exp(r[s.a]);
        break;
      case TapeOp::kLog:
        x = dmath::log(r[s.a]);
        break;
      case TapeOp::kSqrt:
        x = dmath::sqrt(r[s.a]);
        break;
      case TapeOp::kAbs:
        x = tape_ops::abs_of(r[s.a]);
        break;
      case TapeOp::kSign:
        x = tape_ops::sign_of(r[s.a]);
        break;
      case TapeOp::kPow:
        x = dmath::pow(r[s.a], r[s.b]);
        break;
      case TapeOp::kConst:  // hoisted into constants_, never dispatched
        x = T(0.0);
        break;
    }
    ::new (static_cast<void*>(w++)) T(x);
  }
  const std::size_t n = output_registers_.size();
  for (std::size_t k = 0; k < n; ++k) out[k] = r[output_registers_[k]];
}

template <class T>
void Tape::evaluate_large(const T* in, T* out) const {
  alignas(64) unsigned char storage[kMaxTapeRegisters * sizeof(T)];
  run(in, out, reinterpret_cast<T*>(storage));
}

template <class T>
void Tape::evaluate(const T* in, T* out) const {
  if (steps_.empty()) {
    gather(in, out);
  } else if (num_registers() <= tape_ops::kSmallRegisters) {
    alignas(64) unsigned char storage[tape_ops::kSmallRegisters * sizeof(T)];
    run(in, out, reinterpret_cast<T*>(storage));
  } else {
    evaluate_large(in, out);
  }
}

}  // namespace nhsim::custom
