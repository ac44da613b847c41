#include "nhsim/client/local.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

#include "nhsim/client/files.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/part_file.hpp"
#include "nhsim/wire/spec_hash.hpp"
#include "nhsim/wire/to_proto.hpp"

namespace nhsim::client {
namespace {

/// The whole of `text` as a non-negative integer; false if it is anything else.
bool parse_count(std::string_view text, std::int64_t& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end && !text.empty() && value >= 0;
}

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

}  // namespace

TrajectoryRange parse_shard(std::string_view text, std::int64_t n_trajectories) {
  const std::size_t slash = text.find('/');
  std::int64_t shard = 0, shards = 0;
  if (slash == std::string_view::npos || !parse_count(text.substr(0, slash), shard) ||
      !parse_count(text.substr(slash + 1), shards) || shard >= shards) {
    throw std::invalid_argument("--shard: " + quoted(text) + " is not I/N with 0 <= I < N");
  }
  return shard_range(n_trajectories, shard, shards);
}

TrajectoryRange parse_trajectories(std::string_view text, std::int64_t n_trajectories) {
  const std::size_t colon = text.find(':');
  TrajectoryRange range;
  if (colon == std::string_view::npos || !parse_count(text.substr(0, colon), range.begin) ||
      !parse_count(text.substr(colon + 1), range.end) || range.begin > range.end) {
    throw std::invalid_argument("--trajectories: " + quoted(text) +
                                " is not LO:HI with 0 <= LO <= HI");
  }
  if (range.end > n_trajectories) {
    throw std::invalid_argument("--trajectories: " + quoted(text) + " ends beyond the spec's " +
                                std::to_string(n_trajectories) + " trajectories");
  }
  return range;
}

std::int64_t trajectory_count(const v1::SubmitEnsembleRequest& spec) {
  return nhsim::trajectory_count(wire::from_proto(spec));
}

v1::PartialResult run_range(const v1::SubmitEnsembleRequest& spec, TrajectoryRange range,
                            int threads, const ProgressFn& progress) {
  RunOptions options;
  options.threads = threads;
  options.progress = progress;
  PartialResult partial = run_partial(wire::from_proto(spec), range, options);
  partial.spec_hash = wire::spec_sha256(spec);
  return wire::to_proto(partial, spec);
}

v1::EnsembleResult run_until(const v1::SubmitEnsembleRequest& spec, int threads,
                             const ProgressFn& progress) {
  RunOptions options;
  options.threads = threads;
  options.progress = progress;
  v1::EnsembleResult result = wire::to_proto(run_ensemble(wire::from_proto(spec), options));
  result.set_label(spec.label());
  return result;
}

v1::PartialResult merge_files(const std::vector<std::string>& files, bool allow_mixed_builds) {
  // The running merge stays in core form: each file is converted once, the result once.
  v1::SubmitEnsembleRequest spec;
  PartialResult merged;
  std::vector<std::string> fingerprints;
  for (std::size_t k = 0; k < files.size(); ++k) {
    v1::PartialResult part = load_partial(files[k]);
    fingerprints.push_back(part.fingerprint());
    if (!allow_mixed_builds) {  // before the merge: a mix is refused at the first odd part
      wire::check_same_fingerprint(
          {files.begin(), files.begin() + static_cast<std::ptrdiff_t>(k) + 1}, fingerprints,
          "merge them anyway with --allow-mixed-builds");
    }
    try {
      if (k == 0) {
        merged = wire::from_proto(part);
        spec = std::move(*part.mutable_spec());
      } else {
        merge_partial(merged, wire::from_proto(part));
      }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(files[k] + ": " + e.what());
    }
  }
  v1::PartialResult out = wire::to_proto(merged, spec);
  // The merge adds; the bits are the parts', so is their fingerprint.
  const bool mixed = std::any_of(fingerprints.begin(), fingerprints.end(),
                                 [&](const std::string& f) { return f != fingerprints.front(); });
  out.set_fingerprint(mixed ? "mixed" : fingerprints.front());
  return out;
}

bool complete(const v1::PartialResult& partial) {
  return partial.n_trajectories() == 0 ||
         (partial.ranges_size() == 1 && partial.ranges(0).begin() == 0 &&
          partial.ranges(0).end() == partial.n_trajectories());
}

v1::EnsembleResult finish(const v1::PartialResult& partial, int threads) {
  v1::EnsembleResult result = wire::to_proto(
      nhsim::finish(wire::from_proto(partial.spec()), wire::from_proto(partial), threads));
  result.set_label(partial.spec().label());
  return result;
}

}  // namespace nhsim::client
