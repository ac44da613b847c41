// libFuzzer target over the spec path a submission takes: JSON spec text -> protobuf
// (JsonStringToMessage into nhsim.v1.SubmitEnsembleRequest, as the CLI reads a spec file) ->
// nhsim::wire::from_proto -> nhsim::validate -> nhsim::trajectory_count ->
// nhsim::estimate_cost (what nhsimd's SubmitEnsemble computes before admitting a job).
//
// Documented outcomes: the JSON does not parse (a status), or the spec is refused with a
// std::invalid_argument (nhsim::SpecError). Anything else is a finding: a crash, an ASan or
// UBSan report, an allocation over libFuzzer's -malloc_limit_mb, another exception type, or a
// cost estimate that is negative or not a number. Built with -DNHSIM_FUZZ=ON (clang only);
// scripts/fuzz builds and runs it.
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"
#include "nhsim/wire/from_proto.hpp"
#include "outcome.hpp"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  nhsim::fuzz::finding("spec_fuzzer", what, detail);
}

void check_cost(const nhsim::CostEstimate& cost, std::int64_t trajectories) {
  if (cost.trajectories != trajectories || cost.trajectories < 1) {
    finding("cost estimate", "trajectories " + std::to_string(cost.trajectories) +
                                 " != trajectory_count " + std::to_string(trajectories));
  }
  for (const double x :
       {cost.trajectory_steps, cost.generator_draws, cost.statistics_bytes, cost.result_bytes}) {
    if (!(x >= 0.0)) finding("cost estimate", "negative or NaN figure " + std::to_string(x));
  }
  if (cost.cells < 1) finding("cost estimate", "cells " + std::to_string(cost.cells));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nhsim::v1::SubmitEnsembleRequest request;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;  // as client/files.cpp parse_spec()
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(reinterpret_cast<const char*>(data), size), &request, options);
  if (!status.ok()) return 0;  // not a spec: the CLI refuses it before anything else runs
  nhsim::fuzz::expect_accepted_or_refused("spec_fuzzer", [&] {
    const nhsim::EnsembleSpec spec = nhsim::wire::from_proto(request);
    nhsim::validate(spec);
    const std::int64_t trajectories = nhsim::trajectory_count(spec);
    check_cost(nhsim::estimate_cost(spec), trajectories);
  });
  return 0;
}
