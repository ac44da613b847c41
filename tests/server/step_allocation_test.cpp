// The step loop takes no heap memory: for every integrator choice of every example spec, the
// stepper advances its first trajectory (and is sampled: energy, residual, state) without one
// malloc, calloc or realloc. This executable interposes glibc's malloc family to count the
// calls made while counting is switched on; Eigen and operator new allocate through malloc.
// Under AddressSanitizer or ThreadSanitizer, whose runtimes own malloc, the test is skipped.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nhsim/catalogue.hpp"
#include "nhsim/client/files.hpp"
#include "nhsim/custom/model.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model.hpp"
#include "nhsim/wire/from_proto.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NHSIM_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NHSIM_COUNT_MALLOC 0
#endif
#endif
#ifndef NHSIM_COUNT_MALLOC
#define NHSIM_COUNT_MALLOC 1
#endif

namespace {
thread_local bool counting = false;
thread_local long allocations = 0;
std::vector<double>* volatile escaped_allocation = nullptr;  // allocate_and_escape()
}  // namespace

#if NHSIM_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* ptr, std::size_t size);
void __libc_free(void* ptr);

void* malloc(std::size_t size) {
  if (counting) ++allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  if (counting) ++allocations;
  return __libc_calloc(n, size);
}
void* realloc(void* ptr, std::size_t size) {
  if (counting) ++allocations;
  return __libc_realloc(ptr, size);
}
void free(void* ptr) { __libc_free(ptr); }
}
#endif

namespace nhsim {
namespace {

/// Heap allocations made by f() on this thread.
template <class F>
long allocations_in(F&& f) {
  allocations = 0;
  counting = true;
  f();
  counting = false;
  return allocations;
}

/// Allocates on the heap in a way no compiler may elide: clang removes an unused new/delete
/// pair (a local std::vector that is never read), which would make the check below vacuous.
void allocate_and_escape() {
  const auto v = std::make_unique<std::vector<double>>(100);
  escaped_allocation = v.get();
}

/// Steps `model` from (q, p) with `choice` as the ensemble does (advance, sample, state) and
/// returns the heap allocations made after a warm-up step.
long step_loop_allocations(const SystemModel& model, const IntegratorChoice& choice, double t_final,
                           const Eigen::VectorXd& q, const Eigen::VectorXd& p,
                           const std::string& where) {
  const auto stepper = model.make_stepper(choice);
  stepper->set_state(q, p);
  EXPECT_EQ(stepper->advance(1).status, StepStatus::kOk) << where;  // warm-up
  const auto steps = std::min<std::int64_t>(2000, std::llround(t_final / choice.h) - 1);
  double energy = 0.0, residual = 0.0;
  Eigen::VectorXd qk = q, pk = p;  // sized: get_state then only copies
  return allocations_in([&] {
    for (std::int64_t k = 0; k < steps; k += choice.sample_every) {
      (void)stepper->advance(std::min(choice.sample_every, steps - k));
      stepper->energy_and_residual(energy, residual);
      stepper->get_state(qk, pk);
    }
  });
}

TEST(StepLoop, TakesNoHeapMemoryForAnyExampleChoice) {
  if (!NHSIM_COUNT_MALLOC) GTEST_SKIP() << "the sanitizer's runtime owns malloc";
  ASSERT_GT(allocations_in(allocate_and_escape), 0) << "malloc is not counted";
  std::vector<std::filesystem::path> specs;
  for (const auto& f : std::filesystem::directory_iterator(NHSIM_EXAMPLES_DIR)) {
    if (f.path().extension() == ".json") specs.push_back(f.path());
  }
  std::sort(specs.begin(), specs.end());
  ASSERT_GT(specs.size(), 20u);
  for (const auto& path : specs) {
    const EnsembleSpec spec = wire::from_proto(client::load_spec(path));
    std::unique_ptr<SystemModel> model;
    if (spec.custom_system) {  // a user-defined system: its register tapes
      model = make_custom_model(compile_custom_system(*spec.custom_system));
    } else {
      const SystemEntry& entry = *find_system(spec.system);
      model = entry.make(complete_parameters(entry, spec.parameters));
    }
    model->set_controls(spec.controls);
    model->set_loads(spec.loads);
    Eigen::VectorXd q, p;
    std::string reason;
    ASSERT_TRUE(initial_state(spec.initial_conditions, *model, 0, q, p, reason)) << reason;
    for (const IntegratorChoice& choice : spec.integrators) {
      const std::string where = path.filename().string() + " " + choice.integrator;
      EXPECT_EQ(step_loop_allocations(*model, choice, spec.t_final, q, p, where), 0) << where;
    }
  }
}

// A user-defined system of a size without fixed-size types (the rolling disk, (4, 2)) runs on
// dynamic-size Eigen types, sized once when the stepper is made: every method that applies.
TEST(StepLoop, TakesNoHeapMemoryForACustomSystemOfAnySize) {
  if (!NHSIM_COUNT_MALLOC) GTEST_SKIP() << "the sanitizer's runtime owns malloc";
  CustomSystemSpec disk;
  disk.coordinates = {"x1", "x2", "theta", "phi"};
  disk.parameters = {{"r", 0.5}};
  disk.mass_matrix = {
      {"2", "0", "0", "0"}, {"0", "2", "0", "0"}, {"0", "0", "0.3", "0"}, {"0", "0", "0", "0.7"}};
  disk.potential = "x1^2/2";
  disk.constraints = {{"1", "0", "0", "-r*cos(theta)"}, {"0", "1", "0", "-r*sin(theta)"}};
  const auto model = make_custom_model(compile_custom_system(disk));
  const std::vector<IntegratorInfo> integrators = list_integrators();
  const double theta = 0.3, w = 1.2;
  Eigen::VectorXd q(4), p(4);
  q << 0.2, -0.5, theta, 0.4;
  p << 2.0 * 0.5 * w * std::cos(theta), 2.0 * 0.5 * w * std::sin(theta), 0.3 * 0.7, 0.7 * w;
  const std::vector<std::string> applicable = custom_system_info().integrators;
  ASSERT_EQ(applicable.size(), 12u);
  for (const std::string& id : applicable) {
    const IntegratorInfo& method = *std::find_if(integrators.begin(), integrators.end(),
                                                 [&](const auto& i) { return i.name == id; });
    IntegratorChoice choice;
    choice.integrator = id;
    choice.h = 0.01;
    choice.sample_every = 20;
    choice.newton_tol = method.default_newton_tol;
    choice.newton_max_iter = method.default_newton_max_iter;
    EXPECT_EQ(step_loop_allocations(*model, choice, 20.0, q, p, id), 0) << id;
  }
}

// Catalogue systems that no example covers with every method: the chaotic quartic system with
// n != 3 (ChaoticQuartic<Eigen::Dynamic>) and the Chaplygin sleigh, whose M depends on q. Every
// method that applies, from a state on the energy shell.
TEST(StepLoop, TakesNoHeapMemoryForTheDynamicQuarticAndAVaryingMass) {
  if (!NHSIM_COUNT_MALLOC) GTEST_SKIP() << "the sanitizer's runtime owns malloc";
  const std::vector<IntegratorInfo> integrators = list_integrators();
  const std::pair<const char*, std::map<std::string, double>> systems[] = {
      {"chaotic_quartic", {{"n", 2.0}}}, {"chaplygin_sleigh", {}}};
  for (const auto& [name, parameters] : systems) {
    const SystemEntry& entry = *find_system(name);
    const auto model = entry.make(complete_parameters(entry, parameters));
    EnergyShellGenerator g;
    g.energy = 1.5;
    g.seed = 7;
    Eigen::VectorXd q, p;
    std::string reason;
    ASSERT_TRUE(energy_shell_state(*model, g, 0, q, p, reason)) << name << ": " << reason;
    int checked = 0;
    for (const IntegratorInfo& method : integrators) {
      if (entry.not_applicable(method.name)) continue;
      IntegratorChoice choice;
      choice.integrator = method.name;
      choice.h = 0.01;
      choice.sample_every = 20;
      choice.newton_tol = method.default_newton_tol;
      choice.newton_max_iter = method.default_newton_max_iter;
      const std::string where = std::string(name) + " " + method.name;
      EXPECT_EQ(step_loop_allocations(*model, choice, 20.0, q, p, where), 0) << where;
      ++checked;
    }
    EXPECT_GE(checked, 7) << name;
  }
}

}  // namespace
}  // namespace nhsim
