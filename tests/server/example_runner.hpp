// Runs a spec of examples/ on the core runner as nhsimd would (JSON -> proto -> core -> proto),
// for the tests that assert a seed's results on its example specs.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "nhsim/client/files.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/server/from_proto.hpp"
#include "nhsim/server/to_proto.hpp"

namespace nhsim::server::test {

/// The wire result of examples/<name>.
inline v1::EnsembleResult run_example(const std::string& name) {
  const auto request = client::load_spec(std::filesystem::path(NHSIM_EXAMPLES_DIR) / name);
  return to_proto(run_ensemble(from_proto(request)));
}

/// The statistics of `observable` in `r`; std::runtime_error if it was not sampled.
inline const v1::SeriesStats& series(const v1::IntegratorResult& r, const std::string& observable) {
  for (const auto& s : r.observables()) {
    if (s.observable() == observable) return s;
  }
  throw std::runtime_error("no observable " + observable);
}

}  // namespace nhsim::server::test
