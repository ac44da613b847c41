// The register tape (nhsim/custom/tape.hpp): its executed form, and the interpreter
// (tape_run.hpp) at double and complex arguments.
#include "nhsim/custom/tape.hpp"

#include <complex>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include "custom/tape_run.hpp"

namespace nhsim::custom {

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

template void Tape::evaluate(const double*, double*) const;
template void Tape::evaluate(const std::complex<double>*, std::complex<double>*) const;

}  // namespace nhsim::custom
