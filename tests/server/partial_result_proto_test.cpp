// A partial result through the wire and back is the same state: it merges and finishes to the
// same bits; malformed partials are refused naming the field; the spec hash identifies a spec.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

#include "nhsim/ensemble.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/spec_hash.hpp"
#include "nhsim/wire/to_proto.hpp"

namespace nhsim::server {
namespace {

/// 450 energy-shell states (beyond the sketches' 400 exact values) with two integrators, and
/// every kind of per-trajectory output.
v1::SubmitEnsembleRequest spec_request() {
  v1::SubmitEnsembleRequest request;
  request.set_system("chaotic_quartic");
  (*request.mutable_parameters())["n"] = 3;
  auto* shell = request.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(5);
  shell->set_count(450);
  for (const char* integrator : {"si_dla", "rk4"}) {
    auto* choice = request.add_integrators();
    choice->set_integrator(integrator);
    choice->set_h(0.1);
    choice->set_sample_every(2);
  }
  request.set_t_final(1.0);
  request.set_label("round trip");
  v1::Outputs* outputs = request.mutable_outputs();
  outputs->mutable_initial_states()->set_all(true);
  for (const std::int64_t i : {0, 169, 170, 449}) outputs->mutable_final_states()->add_indices(i);
  for (const std::int64_t i : {3, 300}) outputs->mutable_sampled()->add_indices(i);
  outputs->set_sampled_state(true);
  outputs->set_summary(true);
  v1::Histogram* histogram = outputs->add_histograms();
  histogram->set_observable("energy_error");
  histogram->add_times(1.0);
  for (const double edge : {-1e-2, 0.0, 1e-2}) histogram->add_edges(edge);
  return request;
}

RunOptions one_thread() {
  RunOptions options;
  options.threads = 1;
  return options;
}

PartialResult shard(const v1::SubmitEnsembleRequest& request, TrajectoryRange range) {
  PartialResult partial = run_partial(wire::from_proto(request), range, one_thread());
  partial.spec_hash = wire::spec_sha256(request);
  return partial;
}

std::string deterministic_bytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  {
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

/// The result's proto without its timings.
v1::EnsembleResult statistics(const EnsembleResult& result) {
  v1::EnsembleResult out = wire::to_proto(result);
  for (auto& integrator : *out.mutable_integrators()) {
    integrator.clear_wall_seconds();
    integrator.clear_steps_per_second();
  }
  return out;
}

TEST(PartialResultProto, ThroughTheWireItMergesAndFinishesToTheSameBits) {
  const v1::SubmitEnsembleRequest request = spec_request();
  const EnsembleSpec spec = wire::from_proto(request);
  const PartialResult a = shard(request, {0, 170});
  const PartialResult b = shard(request, {170, 450});

  v1::PartialResult wire_a;
  ASSERT_TRUE(wire_a.ParseFromString(wire::to_proto(a, request).SerializeAsString()));
  const PartialResult a_back = wire::from_proto(wire_a);
  ASSERT_EQ(a_back.choices[0].initial_states.size(), 170u);
  ASSERT_EQ(a_back.choices[1].summary.size(), 170u);
  EXPECT_EQ(deterministic_bytes(wire::to_proto(a_back, request)), deterministic_bytes(wire_a));
  EXPECT_EQ(wire_a.spec_sha256(), wire::spec_sha256(request));
  EXPECT_EQ(wire_a.format_version(), wire::kPartialResultFormat);

  PartialResult direct = b;
  merge_partial(direct, a);
  PartialResult through_wire = wire::from_proto(wire::to_proto(b, request));
  merge_partial(through_wire, a_back);
  const v1::EnsembleResult expected = statistics(run_ensemble(spec, one_thread()));
  EXPECT_EQ(expected.initial_states_size(), 450);
  EXPECT_EQ(expected.integrators(0).final_states_size(), 4);
  EXPECT_EQ(expected.integrators(1).sampled_size(), 2);
  ASSERT_EQ(expected.integrators(1).histograms_size(), 1);
  std::int64_t binned = 0;
  for (const std::int64_t count : expected.integrators(1).histograms(0).at(0).counts()) {
    binned += count;
  }
  EXPECT_EQ(binned, 450);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      statistics(finish(spec, through_wire, 1)), expected));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      statistics(finish(spec, direct, 1)), expected));
}

/// The what() of the std::invalid_argument that wire::from_proto(partial) throws; "" if none.
std::string refusal(const v1::PartialResult& partial) {
  try {
    (void)wire::from_proto(partial);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(PartialResultProto, MalformedPartialsAreRefusedNamingTheField) {
  const v1::SubmitEnsembleRequest request = spec_request();
  const v1::PartialResult good = wire::to_proto(shard(request, {0, 20}), request);
  ASSERT_EQ(refusal(good), "");

  v1::PartialResult newer = good;
  newer.set_format_version(3);
  EXPECT_EQ(refusal(newer),
            "partial result format_version 3 is not 2 (written by another nhsim version?)");

  v1::PartialResult beyond = good;
  beyond.mutable_ranges(0)->set_end(451);
  EXPECT_NE(refusal(beyond).find("ranges[0]"), std::string::npos);

  v1::PartialResult lying_count = good;
  lying_count.mutable_choices(1)->mutable_cells(4)->set_n(21);
  EXPECT_EQ(refusal(lying_count),
            "partial result choices[1].cells[4]: sketch count 20 is not n = 21");

  v1::PartialResult bad_digits = good;
  bad_digits.mutable_choices(0)->mutable_cells(3)->mutable_sum()->set_shift(80);
  EXPECT_NE(refusal(bad_digits).find("choices[0].cells[3].sum: "), std::string::npos)
      << refusal(bad_digits);

  v1::PartialResult lost_failure = good;
  lost_failure.mutable_choices(0)->set_failed(1);
  EXPECT_NE(refusal(lost_failure).find("counts do not add up"), std::string::npos);
}

TEST(PartialResultProto, ListsAtMostTheFirstFailuresAndReadsOlderPartialsThatListMore) {
  const v1::SubmitEnsembleRequest request = spec_request();
  v1::PartialResult older = wire::to_proto(shard(request, {0, 20}), request);
  v1::ChoicePartial& choice = *older.mutable_choices(0);
  const auto more = static_cast<std::int64_t>(kMaxListedFailures) + 50;
  choice.set_failed(more);
  for (std::int64_t i = 0; i < more; ++i) {
    v1::TrajectoryFailure& f = *choice.add_failures();
    f.set_trajectory(i);
    f.set_reason("non-finite state");
  }
  const PartialResult read = wire::from_proto(older);  // written before the cap: all listed
  ASSERT_EQ(read.choices[0].failures.size(), kMaxListedFailures);
  EXPECT_EQ(read.choices[0].failures.back().trajectory,
            static_cast<std::int64_t>(kMaxListedFailures) - 1);
  EXPECT_EQ(read.choices[0].failed, more);

  v1::PartialResult capped = wire::to_proto(read, request);  // the first listed: accepted
  EXPECT_EQ(refusal(capped), "");
  capped.mutable_choices(0)->mutable_failures()->RemoveLast();  // fewer than the cap: lost
  EXPECT_NE(refusal(capped).find("counts do not add up"), std::string::npos);
}

TEST(SpecHash, IdentifiesTheSpecWhateverTheMapOrder) {
  v1::SubmitEnsembleRequest a = spec_request();
  (*a.mutable_parameters())["alpha"] = 0.5;
  v1::SubmitEnsembleRequest b = spec_request();
  b.mutable_parameters()->clear();
  (*b.mutable_parameters())["alpha"] = 0.5;
  (*b.mutable_parameters())["n"] = 3;
  const std::string hash = wire::spec_sha256(a);
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(wire::spec_sha256(b), hash);
  b.set_label("another label");
  EXPECT_NE(wire::spec_sha256(b), hash);
  // SHA-256 of the empty message (no bytes).
  EXPECT_EQ(wire::spec_sha256(v1::SubmitEnsembleRequest()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace nhsim::server
