// The register tape of a user-defined system (issue 16, DESIGN.md "User-defined systems"): a
// flat array of operations over a register file, compiled from parsed expression trees by
// core/src/custom/tape_compiler.cpp. Never generated code: the tape is data, interpreted here.
//
// Register file of one evaluation: registers [0, num_inputs) hold the inputs (the coordinates
// q), register num_inputs + k the result of instruction k. Each instruction reads registers
// written before it, so one forward pass evaluates every output. Common subexpressions are
// shared (one instruction per distinct subtree and per distinct (op, operands)), constant
// subtrees are folded to one kConst by the compiler. An evaluation allocates nothing: the
// register file lives on the stack, at most kMaxTapeRegisters entries.
//
// The same tape evaluates at real q (double) and at complex q (std::complex<double>), the latter
// for the complex-step derivative of mu (nhsim/complex_step.hpp): every operation is the
// analytic continuation of its real counterpart (abs(z) = z sign(Re z), sign(z) = sign(Re z),
// both constant in the imaginary direction as their real derivatives are).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace nhsim::custom {

/// The largest register file a tape may need (inputs + instructions); the compiler refuses
/// bigger definitions with a SpecError. 4096 doubles = 32 KiB of stack per evaluation.
inline constexpr int kMaxTapeRegisters = 4096;

/// One operation. Operands a, b are register indices; `value` is the constant of kConst.
enum class TapeOp : std::uint8_t {
  kConst,  ///< r = value
  kAdd,    ///< r = a + b
  kSub,    ///< r = a - b
  kMul,    ///< r = a * b
  kDiv,    ///< r = a / b
  kNeg,    ///< r = -a
  kSin,
  kCos,
  kTan,
  kExp,
  kLog,
  kSqrt,
  kAbs,   ///< |a| (complex: a sign(Re a))
  kSign,  ///< sign(a) in {-1, 0, 1} (complex: of Re a); from derivatives of abs only
  kPow,   ///< a^b = std::pow(a, b)
};

struct TapeInstruction {
  TapeOp op;
  std::int32_t a = 0;
  std::int32_t b = 0;
  double value = 0.0;
};

/// A compiled list of expressions of the same inputs. Evaluate with evaluate<T>(in, out): in of
/// length num_inputs(), out of length num_outputs(). No error status: a NaN or inf in an output
/// is what the arithmetic gave (log of a negative number, division by zero), and the integrators
/// report non-finite states as failures.
class Tape {
 public:
  Tape() = default;
  Tape(int num_inputs, std::vector<TapeInstruction> code, std::vector<std::int32_t> outputs)
      : num_inputs_(num_inputs), code_(std::move(code)), outputs_(std::move(outputs)) {}

  int num_inputs() const { return num_inputs_; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  int num_registers() const { return num_inputs_ + static_cast<int>(code_.size()); }
  const std::vector<TapeInstruction>& code() const { return code_; }
  const std::vector<std::int32_t>& outputs() const { return outputs_; }

  /// out[k] = output k at inputs in. T = double or std::complex<double>. Allocates nothing.
  template <class T>
  void evaluate(const T* in, T* out) const {
    // A small register file for the usual tape (2 KiB of doubles: no stack probing), the full
    // one otherwise.
    if (num_registers() <= kSmallRegisters) {
      alignas(64) unsigned char storage[kSmallRegisters * sizeof(T)];
      run(in, out, reinterpret_cast<T*>(storage));
    } else {
      evaluate_large(in, out);
    }
  }

 private:
  static constexpr int kSmallRegisters = 256;

  /// The full register file, in its own stack frame (not inlined into the small path's).
  template <class T>
  [[gnu::noinline]] void evaluate_large(const T* in, T* out) const {
    alignas(64) unsigned char storage[kMaxTapeRegisters * sizeof(T)];
    run(in, out, reinterpret_cast<T*>(storage));
  }

  template <class T>
  void run(const T* in, T* out, T* r) const {
    for (int i = 0; i < num_inputs_; ++i) ::new (static_cast<void*>(r + i)) T(in[i]);
    T* w = r + num_inputs_;
    for (const TapeInstruction& ins : code_) {
      ::new (static_cast<void*>(w)) T(apply(ins, r));
      ++w;
    }
    const std::size_t n = outputs_.size();
    for (std::size_t k = 0; k < n; ++k) out[k] = r[outputs_[k]];
  }

  static double sign_of(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }
  static double abs_of(double x) { return std::abs(x); }
  static std::complex<double> sign_of(const std::complex<double>& z) { return sign_of(z.real()); }
  static std::complex<double> abs_of(const std::complex<double>& z) {
    return z.real() < 0.0 ? -z : z;
  }

  template <class T>
  static T apply(const TapeInstruction& ins, const T* r) {
    using std::cos;
    using std::exp;
    using std::log;
    using std::pow;
    using std::sin;
    using std::sqrt;
    using std::tan;
    switch (ins.op) {
      case TapeOp::kConst:
        return T(ins.value);
      case TapeOp::kAdd:
        return r[ins.a] + r[ins.b];
      case TapeOp::kSub:
        return r[ins.a] - r[ins.b];
      case TapeOp::kMul:
        return r[ins.a] * r[ins.b];
      case TapeOp::kDiv:
        return r[ins.a] / r[ins.b];
      case TapeOp::kNeg:
        return -r[ins.a];
      case TapeOp::kSin:
        return sin(r[ins.a]);
      case TapeOp::kCos:
        return cos(r[ins.a]);
      case TapeOp::kTan:
        return tan(r[ins.a]);
      case TapeOp::kExp:
        return exp(r[ins.a]);
      case TapeOp::kLog:
        return log(r[ins.a]);
      case TapeOp::kSqrt:
        return sqrt(r[ins.a]);
      case TapeOp::kAbs:
        return abs_of(r[ins.a]);
      case TapeOp::kSign:
        return sign_of(r[ins.a]);
      case TapeOp::kPow:
        return pow(r[ins.a], r[ins.b]);
    }
    return T(0.0);
  }

  int num_inputs_ = 0;
  std::vector<TapeInstruction> code_;
  std::vector<std::int32_t> outputs_;
};

}  // namespace nhsim::custom
