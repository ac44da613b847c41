// Partial results: any split of the trajectories into shards, merged in any order and grouping,
// finishes to the single run's result bit for bit; merges of partials that do not belong
// together are refused with the reason.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "result_compare.hpp"

namespace nhsim {
namespace {

// examples/chaotic_variance.json ([Celledoni2019] Fig. 2), with 450 trajectories, beyond the
// quantile sketch's exact capacity, and t_final = 50 instead of 1000 to keep the test short.
// gonzalez and avf are implicit (Newton), si_dla and rk4 explicit.
EnsembleSpec variance_spec() {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 20261122;
  g.count = 450;
  s.initial_conditions = g;
  for (const char* id : {"gonzalez", "avf", "si_dla", "rk4"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 20;
    s.integrators.push_back(c);
  }
  s.t_final = 50.0;
  return s;
}

RunOptions two_threads() {
  RunOptions o;
  o.threads = 2;
  return o;
}

std::vector<PartialResult> shards(const EnsembleSpec& spec, const std::vector<std::int64_t>& cuts) {
  std::vector<PartialResult> out;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    out.push_back(run_partial(spec, {cuts[k], cuts[k + 1]}, two_threads()));
    out.back().spec_hash = "variance";
  }
  return out;
}

TEST(PartialResult, AnySplitMergedInAnyOrderEqualsTheSingleRun) {
  const EnsembleSpec spec = variance_spec();
  const EnsembleResult single = run_ensemble(spec, two_threads());
  ASSERT_EQ(single.integrators[0].trajectories_ok, 450);
  // 1, 3 and 7 shards of uneven sizes (1 and 99 trajectories, block boundaries split).
  for (const std::vector<std::int64_t>& cuts :
       {std::vector<std::int64_t>{0, 450}, {0, 1, 200, 450}, {0, 5, 6, 100, 101, 333, 400, 450}}) {
    const std::vector<PartialResult> parts = shards(spec, cuts);
    PartialResult back_to_front = parts.back();
    for (std::size_t k = parts.size() - 1; k-- > 0;) merge_partial(back_to_front, parts[k]);
    ASSERT_EQ(back_to_front.ranges.size(), 1u);
    test::expect_bit_identical(single, finish(spec, back_to_front));
    // Pairs first, then the pairs together, starting from the middle.
    std::vector<PartialResult> level = parts;
    while (level.size() > 1) {
      std::vector<PartialResult> next;
      for (std::size_t k = 0; k + 1 < level.size(); k += 2) {
        next.push_back(level[k + 1]);
        merge_partial(next.back(), level[k]);
      }
      if (level.size() % 2 == 1) next.insert(next.begin(), level.back());
      level = std::move(next);
    }
    test::expect_bit_identical(single, finish(spec, level[0]));
  }
}

TEST(PartialResult, ShardsPartitionTheTrajectoriesEvenly) {
  for (std::int64_t n : {0, 1, 7, 450, 1000003}) {
    for (std::int64_t shards : {1, 2, 3, 7, 64}) {
      std::int64_t next = 0;
      for (std::int64_t i = 0; i < shards; ++i) {
        const TrajectoryRange r = shard_range(n, i, shards);
        EXPECT_EQ(r.begin, next) << n << " " << i << "/" << shards;
        EXPECT_LE(r.end - r.begin, n / shards + 1);
        EXPECT_GE(r.end - r.begin, n / shards);
        next = r.end;
      }
      EXPECT_EQ(next, n);
    }
  }
  EXPECT_EQ(shard_range(std::int64_t{1} << 62, 3, 4).end, std::int64_t{1} << 62);  // no overflow
  EXPECT_THROW((void)shard_range(10, 2, 2), std::invalid_argument);
  EXPECT_THROW((void)shard_range(10, -1, 2), std::invalid_argument);
  EXPECT_THROW((void)shard_range(10, 0, 0), std::invalid_argument);
}

TEST(PartialResult, FinishCancelledCountsWhatIsNotCoveredAsCancelled) {
  EnsembleSpec spec = variance_spec();
  std::get<EnergyShellGenerator>(spec.initial_conditions).count = 30;
  spec.t_final = 1.0;
  std::vector<PartialResult> parts = shards(spec, {0, 10, 20, 30});
  merge_partial(parts[0], parts[2]);
  const EnsembleResult partly = finish_cancelled(spec, parts[0]);
  EXPECT_TRUE(partly.cancelled);
  for (const IntegratorResult& ir : partly.integrators) {
    EXPECT_EQ(ir.trajectories_ok + ir.trajectories_failed, 20);
    EXPECT_EQ(ir.trajectories_cancelled, 10);
    EXPECT_EQ(ir.observables[0].count.back(), ir.trajectories_ok);
  }
  const EnsembleResult nothing = finish_cancelled(spec, PartialResult{});
  EXPECT_EQ(nothing.integrators[0].trajectories_cancelled, 30);
  EXPECT_EQ(nothing.integrators[0].observables[0].count.back(), 0);
  merge_partial(parts[0], parts[1]);
  EXPECT_FALSE(finish_cancelled(spec, parts[0]).cancelled);  // everything covered
}

TEST(PartialResult, APrefixFinishesToTheResultOfItsFirstTrajectories) {
  // A running job's live view: the first 200 of 450 trajectories, done in two pieces, give
  // bit for bit what a spec of 200 gives, marked partial; a partial with a gap is refused.
  const EnsembleSpec spec = variance_spec();
  std::vector<PartialResult> parts = shards(spec, {0, 120, 200, 450});
  merge_partial(parts[0], parts[1]);
  const EnsembleResult so_far = finish_prefix(Problem(spec), parts[0], 2);
  EXPECT_TRUE(so_far.partial);
  EXPECT_FALSE(so_far.cancelled);
  EXPECT_EQ(so_far.n_trajectories, 200);
  EnsembleSpec first = spec;
  std::get<EnergyShellGenerator>(first.initial_conditions).count = 200;
  EnsembleResult whole = run_ensemble(first, two_threads());
  EXPECT_FALSE(whole.partial);
  whole.partial = true;
  test::expect_bit_identical(so_far, whole);
  EXPECT_THROW((void)finish_prefix(Problem(spec), parts[2], 2), PartialMismatch);
}

TEST(PartialResult, StepsAddUpToEveryTrajectorysStepsFailedOnesIncluded) {
  // rk4 at h = 2.5 fails on some states: their remaining steps count as done.
  EnsembleSpec spec = variance_spec();
  std::get<EnergyShellGenerator>(spec.initial_conditions).count = 40;
  spec.integrators[3].h = 2.5;
  std::atomic<std::int64_t> steps{0};
  RunOptions options = two_threads();
  options.steps = &steps;
  const EnsembleResult result = run_ensemble(spec, options);
  std::int64_t expected = 0, taken = 0;
  for (const IntegratorResult& ir : result.integrators) {
    expected += 40 * ir.n_steps;
    taken += ir.steps_completed;
  }
  ASSERT_LT(taken, expected) << "no trajectory failed: the test checks nothing";
  EXPECT_EQ(steps.load(), expected);
  EXPECT_EQ(steps.load(), static_cast<std::int64_t>(estimate_cost(spec).trajectory_steps));
}

TEST(PartialResult, StepsAdvanceWithinALongTrajectory) {
  // One trajectory of 4e6 steps: a watcher sees steps counted before it ends.
  EnsembleSpec spec = variance_spec();
  std::get<EnergyShellGenerator>(spec.initial_conditions).count = 1;
  spec.integrators.resize(3);
  spec.integrators.erase(spec.integrators.begin(), spec.integrators.begin() + 2);  // si_dla
  spec.integrators[0].sample_every = 1000000;
  spec.t_final = 200000.0;
  const std::int64_t total = 4000000;
  std::atomic<std::int64_t> steps{0};
  std::atomic<bool> ended{false};
  std::int64_t seen_within = 0;
  std::thread watcher([&] {
    while (!ended.load()) {
      const std::int64_t s = steps.load();
      if (s > 0 && s < total) seen_within = s;
      std::this_thread::yield();
    }
  });
  RunOptions options;
  options.threads = 1;
  options.steps = &steps;
  const EnsembleResult result = run_ensemble(spec, options);
  ended.store(true);
  watcher.join();
  ASSERT_EQ(result.integrators.at(0).n_steps, total);
  EXPECT_EQ(steps.load(), total);
  EXPECT_GE(seen_within, kStepsPerReport);  // reported in pieces before the end
}

TEST(PartialResult, MergeRefusesOtherSpecsAndOverlapsAndFinishRefusesGaps) {
  EnsembleSpec spec = variance_spec();
  std::get<EnergyShellGenerator>(spec.initial_conditions).count = 30;
  spec.t_final = 1.0;
  std::vector<PartialResult> parts = shards(spec, {0, 10, 20, 30});
  PartialResult other = parts[1];
  other.spec_hash = "another spec";
  PartialResult a = parts[0];
  try {
    merge_partial(a, other);
    ADD_FAILURE() << "merged partials of different specs";
  } catch (const PartialMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("different specs"), std::string::npos) << e.what();
  }
  EXPECT_EQ(a.ranges, (std::vector<TrajectoryRange>{{0, 10}}));  // unchanged
  merge_partial(a, parts[2]);
  try {
    (void)finish(spec, a);
    ADD_FAILURE() << "finished with trajectories missing";
  } catch (const PartialMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("missing trajectories [10, 20)"), std::string::npos)
        << e.what();
  }
  PartialResult overlap = run_partial(spec, {15, 25});
  overlap.spec_hash = "variance";
  try {
    merge_partial(a, overlap);
    ADD_FAILURE() << "merged overlapping partials";
  } catch (const PartialMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)run_partial(spec, {20, 31}), SpecError);
  merge_partial(a, parts[1]);
  EXPECT_EQ(finish(spec, a).integrators[0].trajectories_ok, 30);
}

}  // namespace
}  // namespace nhsim
