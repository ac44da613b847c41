// nhsim: command-line client of nhsimd.
//
//   nhsim [--server ADDR] systems
//   nhsim [--server ADDR] integrators
//   nhsim [--server ADDR] submit SPEC.json [--wait] [--json FILE] [--csv FILE]
//   nhsim [--server ADDR] watch JOB
//   nhsim [--server ADDR] result JOB [--json FILE] [--csv FILE]
//   nhsim [--server ADDR] cancel JOB
//   nhsim convergence RESULT.json [--reference INTEGRATOR]
//
// Exit status: 0 success; 1 error (bad spec, server answer, unreachable server, file);
// 2 the job ended FAILED or CANCELLED (submit --wait, watch).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "nhsim/client/client.hpp"
#include "nhsim/client/files.hpp"
#include "nhsim/client/progress.hpp"
#include "nhsim/client/report.hpp"

namespace {

using nhsim::client::Client;
namespace v1 = nhsim::v1;

constexpr int kError = 1;
constexpr int kJobUnsuccessful = 2;

/// Follows the job with a progress display on stderr (a bar on a TTY, plain lines otherwise),
/// ending with a line on the final state; returns the final job.
v1::Job follow(const Client& client, const std::string& job_id) {
  const bool tty = isatty(fileno(stderr)) != 0;
  nhsim::client::ProgressPrinter progress(stderr, tty);
  const v1::Job job = client.watch(job_id, [&](const v1::Job& update) { progress.update(update); });
  progress.finish();
  if (tty) std::cerr << nhsim::client::job_line(job) << '\n';  // plain lines showed it already
  return job;
}

/// Prints the summary table of the job's result and writes the requested files.
void report(const Client& client, const std::string& job_id, const std::string& json_file,
            const std::string& csv_file) {
  const v1::EnsembleResult result = client.result(job_id);
  std::cout << nhsim::client::summary_table(result) << std::flush;
  if (!json_file.empty()) {
    nhsim::client::write_text_file(json_file, nhsim::client::to_json(result));
    std::cerr << "result written to " << json_file << '\n';
  }
  if (!csv_file.empty()) {
    nhsim::client::write_text_file(csv_file, nhsim::client::to_csv(result));
    std::cerr << "statistics written to " << csv_file << '\n';
  }
}

/// Exit status for a job that ended: 0 when it succeeded.
int exit_status(const v1::Job& job) { return job.state() == v1::SUCCEEDED ? 0 : kJobUnsuccessful; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nhsim: submit ensembles to nhsimd, follow them and fetch their results."};
  app.footer(
      "Exit status: 0 success; 1 error (bad spec, server answer, unreachable server, file); "
      "2 the job ended FAILED or CANCELLED (submit --wait, watch).");
  app.require_subcommand(1);
  std::string server = "127.0.0.1:50051";
  app.add_option("--server", server, "nhsimd address host:port")
      ->capture_default_str()
      ->envname("NHSIM_SERVER");

  auto* systems = app.add_subcommand("systems", "list the systems and their parameters");
  auto* integrators = app.add_subcommand("integrators", "list the integrators");

  std::string spec_file;
  bool wait = false;
  std::string json_file;
  std::string csv_file;
  auto* submit =
      app.add_subcommand("submit", "submit a JSON spec (nhsim.v1.SubmitEnsembleRequest)");
  submit->add_option("SPEC", spec_file, "spec file (JSON)")->required();
  submit->add_flag("--wait", wait, "follow the job, then print the summary table");
  submit->add_option("--json", json_file, "with --wait: write the result as JSON to FILE");
  submit->add_option("--csv", csv_file, "with --wait: write the statistics as CSV to FILE");

  std::string job_id;
  auto* watch = app.add_subcommand("watch", "follow a job until it ends");
  watch->add_option("JOB", job_id, "job id")->required();

  auto* result = app.add_subcommand("result", "print the summary table of a finished job");
  result->add_option("JOB", job_id, "job id")->required();
  result->add_option("--json", json_file, "write the result as JSON to FILE");
  result->add_option("--csv", csv_file, "write the statistics as CSV to FILE");

  auto* cancel = app.add_subcommand("cancel", "ask a job to stop");
  cancel->add_option("JOB", job_id, "job id")->required();

  std::string result_file;
  std::string reference;
  auto* convergence = app.add_subcommand(
      "convergence",
      "order plot as numbers: errors at the last sample time against a reference choice, and "
      "the observed order between step sizes, from a one-trajectory result file with state "
      "observables (q[i], p[i]); needs no server");
  convergence->add_option("RESULT", result_file, "result file (JSON, from --json)")->required();
  convergence->add_option("--reference", reference,
                          "integrator whose smallest-h choice is the reference (default: the "
                          "smallest h of all choices)");

  CLI11_PARSE(app, argc, argv);

  try {
    if (convergence->parsed()) {
      std::cout << nhsim::client::convergence_table(nhsim::client::load_result(result_file),
                                                    reference);
      return 0;
    }
    const Client client(server);
    if (systems->parsed()) {
      std::cout << nhsim::client::systems_table(client.list_systems());
    } else if (integrators->parsed()) {
      std::cout << nhsim::client::integrators_table(client.list_integrators());
    } else if (submit->parsed()) {
      if (!wait && (!json_file.empty() || !csv_file.empty())) {
        std::cerr << "error: --json and --csv need --wait (or use: nhsim result JOB --json FILE)\n";
        return kError;
      }
      const v1::Job job = client.submit(nhsim::client::load_spec(spec_file));
      if (!wait) {
        std::cout << job.job_id() << '\n';
        return 0;
      }
      std::cerr << "submitted job " << job.job_id() << '\n';
      const v1::Job final_job = follow(client, job.job_id());
      if (final_job.state() == v1::SUCCEEDED || final_job.state() == v1::CANCELLED) {
        report(client, job.job_id(), json_file, csv_file);
      }
      return exit_status(final_job);
    } else if (watch->parsed()) {
      return exit_status(follow(client, job_id));
    } else if (result->parsed()) {
      report(client, job_id, json_file, csv_file);
    } else if (cancel->parsed()) {
      std::cout << nhsim::client::job_line(client.cancel(job_id)) << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "nhsim: " << e.what() << '\n';
    return kError;
  }
  return 0;
}
