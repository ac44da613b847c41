// The register tape of a user-defined system (docs/design.md "User-defined systems"): a
// flat array of operations over a register file, compiled from parsed expression trees by
// core/src/custom/tape_compiler.cpp. Never generated code: the tape is data, interpreted by
// core/src/custom/tape.cpp.
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
// both constant in the imaginary direction as their real derivatives are). In the lane units
// (core/src/lanes/) it evaluates over Lane<W, Isa> too, W trajectories per dispatched operation,
// each lane with the bits of the double evaluation (core/src/custom/tape_run.hpp).
#pragma once

#include <complex>
#include <cstdint>
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

/// A compiled list of expressions of the same inputs. Evaluate with evaluate(in, out): in of
/// length num_inputs(), out of length num_outputs(), both double or both std::complex<double>
/// (or, in the lane units, both Lane<W, Isa>).
/// No error status: a NaN or inf in an output is what the arithmetic gave (log of a negative
/// number, division by zero), and the integrators report non-finite states as failures.
class Tape {
 public:
  Tape() = default;
  /// `code` and `outputs` as TapeCompiler emits them: operands of instruction k are registers
  /// below num_inputs + k; outputs are register indices; at most kMaxTapeRegisters registers
  /// (else std::length_error; an operand or output out of range: std::invalid_argument).
  Tape(int num_inputs, std::vector<TapeInstruction> code, std::vector<std::int32_t> outputs);

  int num_inputs() const { return num_inputs_; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  int num_registers() const { return num_inputs_ + static_cast<int>(code_.size()); }
  const std::vector<TapeInstruction>& code() const { return code_; }
  const std::vector<std::int32_t>& outputs() const { return outputs_; }

  /// out[k] = output k at inputs in, of type T: double, std::complex<double> (the complex-step
  /// derivative), both compiled in tape.cpp, or a lane type, compiled where
  /// core/src/custom/tape_run.hpp is included. Allocates nothing (the register file is on the
  /// stack).
  template <class T>
  void evaluate(const T* in, T* out) const;

 private:
  /// One instruction of the executed form: operands renumbered into the register file
  /// [inputs | constants | results of the other instructions].
  struct Step {
    TapeOp op;
    std::uint16_t a;
    std::uint16_t b;
  };

  /// Evaluation of a tape of inputs and constants only (no steps_): out[k] read in place.
  template <class T>
  void gather(const T* in, T* out) const;
  template <class T>
  void run(const T* in, T* out, T* r) const;
  template <class T>
  [[gnu::noinline]] void evaluate_large(const T* in, T* out) const;

  int num_inputs_ = 0;
  std::vector<TapeInstruction> code_;
  std::vector<std::int32_t> outputs_;
  // The executed form, built by the constructor: the kConst values are copied into the
  // register file in one block, and only the other instructions are dispatched.
  std::vector<double> constants_;
  std::vector<Step> steps_;
  std::vector<std::uint16_t> output_registers_;
};

extern template void Tape::evaluate(const double*, double*) const;
extern template void Tape::evaluate(const std::complex<double>*, std::complex<double>*) const;

}  // namespace nhsim::custom
