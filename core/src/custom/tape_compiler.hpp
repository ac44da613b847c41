// Internal: compiles GiNaC expression trees into a register tape (nhsim/custom/tape.hpp).
//
// Translation (one instruction per distinct subtree and per distinct (op, operands)):
//   * a subtree free of the inputs is folded: evalf() to a double (kConst); it must be real and
//     finite;
//   * a sum is a chain of kAdd, a term with a negative numeric coefficient is subtracted
//     (a - c x rather than a + (-c) x);
//   * a product: its numeric coefficient, the factors with positive exponents, and those with
//     negative numeric exponents as one divisor: c * num / den; a coefficient -1 is a kNeg, a
//     coefficient 1/k (integer k) a division by k, so x/3 is divided as written;
//   * x^n for integer |n| <= 64 by repeated squaring (x^2 = x * x), x^(1/2) = sqrt(x), else pow;
//   * sin, cos, tan, exp, log, abs; and, from derivatives only: csgn (sign), real_part and
//     conjugate (identities: the inputs are real), imag_part (0).
// Anything else throws std::domain_error naming it (the caller reports the field).
//
// Determinism: GiNaC orders the operands of a sum or product by hashes of its symbols' serial
// numbers, which depend on how many symbols the process made before, so the same definition
// can come out of GiNaC in another order in another process or job. The compiler sorts
// operands by a key built from names and values only (key()), so the same definition always
// gives the same tape, hence the same bits (docs/design.md: results do not depend on shards,
// resumes or machines).
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "nhsim/custom/tape.hpp"

namespace nhsim::custom {

class TapeCompiler {
 public:
  /// inputs: the symbols of registers 0..n-1.
  explicit TapeCompiler(std::vector<GiNaC::ex> inputs);

  /// Adds `e` as the next output; returns its index. Throws std::domain_error for an
  /// unsupported node, std::length_error past kMaxTapeRegisters.
  int add_output(const GiNaC::ex& e);

  /// The tape of the outputs added so far.
  Tape finish() const;

 private:
  int compile(const GiNaC::ex& e);
  int compile_add(const GiNaC::ex& e);
  int compile_mul(const GiNaC::ex& e);
  int compile_power(const GiNaC::ex& base, const GiNaC::ex& expo);
  int compile_function(const GiNaC::ex& e);
  int int_power(int base, long n);
  int constant(double v);
  int emit(TapeOp op, int a, int b = 0, double value = 0.0);
  bool depends_on_inputs(const GiNaC::ex& e) const;
  /// A string naming e's structure from symbol names, function names and printed numbers, with
  /// the operands of sums and products in sorted order (independent of GiNaC's order).
  const std::string& key(const GiNaC::ex& e);
  std::vector<GiNaC::ex> sorted_operands(const GiNaC::ex& e);
  void sort_by_key(std::vector<GiNaC::ex>& es);

  std::vector<GiNaC::ex> inputs_;
  std::vector<TapeInstruction> code_;
  std::vector<std::int32_t> outputs_;
  std::map<GiNaC::ex, int, GiNaC::ex_is_less> by_tree_;
  std::map<std::tuple<int, int, int, std::uint64_t>, int> by_instruction_;
  std::map<GiNaC::ex, std::string, GiNaC::ex_is_less> keys_;
};

}  // namespace nhsim::custom
