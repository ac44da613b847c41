// libFuzzer target over the custom-system expression path: the input is expression
// text, compiled by nhsim::compile_custom_system (core/src/custom: the parser, GiNaC's symbolic
// gradient, the checks and the tape compiler) as the potential V of a 3-coordinate system
// (x, y, z; parameter epsilon; M = I). A newline splits the input: the part after it becomes the
// constraint entry mu[0][2] instead of "y". A definition that compiles has its tapes of V, dV/dq
// and mu evaluated at a real and at a complex point (the complex step of gonzalez_r and rk2).
//
// Documented outcomes: the definition compiles (any values, NaN and inf included: the
// integrators report non-finite states), or it is refused with a std::invalid_argument
// (nhsim::SpecError). Anything else is a finding: a crash, an ASan or UBSan report, an
// allocation over libFuzzer's -malloc_limit_mb, a timeout or another exception type. Built with
// -DNHSIM_FUZZ=ON (clang only); scripts/fuzz builds and runs it.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nhsim/custom/definition.hpp"
#include "outcome.hpp"

namespace {

template <class T>
void evaluate_all(const nhsim::CustomSystemDefinition& def, const T (&q)[3]) {
  std::vector<T> out(static_cast<std::size_t>(3 * 3));
  for (const nhsim::custom::Tape* tape : {&def.potential, &def.grad_potential, &def.constraint}) {
    if (tape->num_inputs() != 3 || tape->num_outputs() > 9) {
      nhsim::fuzz::finding("expression_fuzzer", "tape shape",
                           std::to_string(tape->num_inputs()) + " inputs, " +
                               std::to_string(tape->num_outputs()) + " outputs");
    }
    tape->evaluate(q, out.data());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  nhsim::CustomSystemSpec spec;
  spec.coordinates = {"x", "y", "z"};
  spec.parameters = {{"epsilon", 0.5}};
  spec.mass_matrix = {{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "1"}};
  spec.potential = text.substr(0, newline);
  spec.constraints = {{"1", "0", newline == std::string::npos ? "y" : text.substr(newline + 1)}};
  nhsim::fuzz::expect_accepted_or_refused("expression_fuzzer", [&] {
    const auto def = nhsim::compile_custom_system(spec);
    const double q[3] = {0.3, -0.2, 0.7};
    evaluate_all(*def, q);
    const std::complex<double> qc[3] = {{0.3, 1e-20}, {-0.2, 0.0}, {0.7, 0.0}};
    evaluate_all(*def, qc);
  });
  return 0;
}
