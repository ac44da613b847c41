// Interpreter of the register tape (nhsim/custom/tape.hpp).
//
// The executed form puts every constant in one block after the inputs, so an evaluation copies
// the inputs and the constants and dispatches only the operations that depend on the inputs.
// The operations and their order are those of the compiled tape, so the results are too.
#include "nhsim/custom/tape.hpp"

#include <cmath>
#include <complex>
#include <cstddef>
#include <iterator>
#include <new>
#include <stdexcept>
#include <utility>

#include "nhsim/dmath.hpp"

namespace nhsim::custom {

namespace {

double sign_of(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }
double abs_of(double x) { return std::abs(x); }
std::complex<double> sign_of(const std::complex<double>& z) { return sign_of(z.real()); }
std::complex<double> abs_of(const std::complex<double>& z) { return z.real() < 0.0 ? -z : z; }

/// Registers of the small register file: 2 KiB of doubles, no stack probing.
constexpr int kSmallRegisters = 256;

}  // namespace

Tape::Tape(int num_inputs, std::vector<TapeInstruction> code, std::vector<std::int32_t> outputs)
    : num_inputs_(num_inputs), code_(std::move(code)), outputs_(std::move(outputs)) {
  if (num_registers() > kMaxTapeRegisters) throw std::length_error("Tape: too many registers");
  // Register renumbering: inputs keep theirs, constants follow, then the other results.
  std::vector<std::uint16_t> reg(static_cast<std::size_t>(num_registers()));
  for (int i = 0; i < num_inputs_; ++i)
    reg[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(i);
  int next = num_inputs_;
  for (std::size_t k = 0; k < code_.size(); ++k) {
    if (code_[k].op != TapeOp::kConst) continue;
    constants_.push_back(code_[k].value);
    reg[static_cast<std::size_t>(num_inputs_) + k] = static_cast<std::uint16_t>(next++);
  }
  for (std::size_t k = 0; k < code_.size(); ++k) {
    const TapeInstruction& ins = code_[k];
    if (ins.op == TapeOp::kConst) continue;
    const auto operand = [&](std::int32_t x) {
      if (x < 0 || x >= num_inputs_ + static_cast<int>(k)) {
        throw std::invalid_argument("Tape: an operand is not an earlier register");
      }
      return reg[static_cast<std::size_t>(x)];
    };
    const bool binary = ins.op == TapeOp::kAdd || ins.op == TapeOp::kSub ||
                        ins.op == TapeOp::kMul || ins.op == TapeOp::kDiv || ins.op == TapeOp::kPow;
    steps_.push_back(Step{ins.op, operand(ins.a), binary ? operand(ins.b) : std::uint16_t{0}});
    reg[static_cast<std::size_t>(num_inputs_) + k] = static_cast<std::uint16_t>(next++);
  }
  for (const std::int32_t o : outputs_) {
    if (o < 0 || o >= num_registers())
      throw std::invalid_argument("Tape: an output is not a register");
    output_registers_.push_back(reg[static_cast<std::size_t>(o)]);
  }
}

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
        x = abs_of(r[s.a]);
        break;
      case TapeOp::kSign:
        x = sign_of(r[s.a]);
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

void Tape::evaluate(const double* in, double* out) const {
  if (steps_.empty()) {
    gather(in, out);
  } else if (num_registers() <= kSmallRegisters) {
    alignas(64) unsigned char storage[kSmallRegisters * sizeof(double)];
    run(in, out, reinterpret_cast<double*>(storage));
  } else {
    evaluate_large(in, out);
  }
}

void Tape::evaluate(const std::complex<double>* in, std::complex<double>* out) const {
  if (steps_.empty()) {
    gather(in, out);
  } else if (num_registers() <= kSmallRegisters) {
    alignas(64) unsigned char storage[kSmallRegisters * sizeof(std::complex<double>)];
    run(in, out, reinterpret_cast<std::complex<double>*>(storage));
  } else {
    evaluate_large(in, out);
  }
}

}  // namespace nhsim::custom
