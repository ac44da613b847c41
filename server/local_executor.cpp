// The local executor: the core's run_ensemble on this machine's oneTBB pool.
#include "nhsim/server/executor.hpp"

namespace nhsim::server {
namespace {

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(int threads) : threads_(threads) {}

  EnsembleResult run(const JobRun& job) override {
    RunOptions options;
    options.threads = threads_;
    options.cancel = &job.cancel;
    options.progress = job.progress;
    return run_ensemble(job.spec, options);
  }

  std::string name() const override { return "local"; }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Executor> make_local_executor(int threads) {
  return std::make_unique<LocalExecutor>(threads);
}

}  // namespace nhsim::server
