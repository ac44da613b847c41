// nhsim: command-line client of nhsimd.
//
//   nhsim [--server ADDR] [--tls-ca FILE | --tls] [--tls-cert FILE --tls-key FILE]
//         [--token-file FILE] [--max-message-mb N] [--output table|json] COMMAND ...
//         (the token also from $NHSIM_TOKEN; --output json prints the protobuf JSON answer)
//   nhsim [--server ADDR] systems
//   nhsim [--server ADDR] integrators
//   nhsim [--server ADDR] submit SPEC.json|- [--wait] [--json FILE] [--csv FILE]
//   nhsim [--server ADDR] watch JOB
//   nhsim [--server ADDR] result JOB [--so-far] [--json FILE] [--csv FILE]
//   nhsim [--server ADDR] cancel JOB
//   nhsim [--server ADDR] jobs
//   nhsim [--server ADDR] delete JOB
//   nhsim convergence RESULT.json [--reference INTEGRATOR]
//   nhsim run SPEC.json|- [--shard I/N | --trajectories LO:HI] [--out PART] [--json FILE]
//             [--csv FILE] [--threads T] [--progress auto|json]
//   nhsim merge PART... [--out PART] [--json FILE] [--csv FILE] [--threads T]
//   nhsim token IDENTITY [--admin] [--append TOKENS_FILE]
//
// Exit status: 0 success; 1 error (bad spec, server answer, unreachable server, file, partial
// results that do not merge); 2 the job ended FAILED or CANCELLED (submit --wait, watch).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/client/client.hpp"
#include "nhsim/client/files.hpp"
#include "nhsim/client/local.hpp"
#include "nhsim/client/progress.hpp"
#include "nhsim/client/report.hpp"
#include "nhsim/client/suggest.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/wire/auth.hpp"

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

/// Prints `message` as protobuf JSON (--output json).
void print_json(const google::protobuf::Message& message) {
  std::cout << nhsim::client::to_json(message) << std::flush;
}

/// Prints the summary table of `result` (or, with `json_output`, the result as JSON) and
/// writes the requested files.
void report(const v1::EnsembleResult& result, const std::string& json_file,
            const std::string& csv_file, bool json_output) {
  if (json_output) {
    print_json(result);
  } else {
    std::cout << nhsim::client::summary_table(result) << std::flush;
  }
  if (!json_file.empty()) {
    nhsim::client::write_text_file(json_file, nhsim::client::to_json(result));
    std::cerr << "result written to " << json_file << '\n';
  }
  if (!csv_file.empty()) {
    nhsim::client::write_text_file(csv_file, nhsim::client::to_csv(result));
    std::cerr << "statistics written to " << csv_file << '\n';
  }
}

/// Writes the partial result to `out_file` (if given); with a whole ensemble, prints and writes
/// its result as `report` does.
void report_partial(const v1::PartialResult& partial, const std::string& out_file,
                    const std::string& json_file, const std::string& csv_file, int threads,
                    bool json_output) {
  if (!out_file.empty()) {
    nhsim::client::write_partial(out_file, partial);
    std::cerr << "partial result written to " << out_file << '\n';
  }
  if (nhsim::client::complete(partial)) {
    report(nhsim::client::finish(partial, threads), json_file, csv_file, json_output);
  } else if (!json_file.empty() || !csv_file.empty()) {
    // finish() names the first missing range.
    (void)nhsim::client::finish(partial, threads);
  }
}

/// How `nhsim run` progress names the run: "run SPEC" (the file name; "standard input" for "-"),
/// with the trajectory range when it is not all of them.
std::string run_name(const std::string& spec_file, const nhsim::TrajectoryRange& range,
                     std::int64_t n) {
  std::string name =
      "run " + (spec_file == "-" ? std::string("standard input")
                                 : std::filesystem::path(spec_file).filename().string());
  if (range.begin != 0 || range.end != n) {
    name += " [" + std::to_string(range.begin) + ", " + std::to_string(range.end) + ")";
  }
  return name;
}

/// nhsim run: the spec's trajectories (all, or one shard) in this process.
void run_local(const std::string& spec_file, const std::string& shard,
               const std::string& trajectories, int threads, const std::string& out_file,
               const std::string& json_file, const std::string& csv_file, bool json_output,
               bool json_progress) {
  const v1::SubmitEnsembleRequest spec = nhsim::client::load_spec(spec_file);
  const std::int64_t n = nhsim::client::trajectory_count(spec);
  const bool until = spec.until().targets_size() > 0;
  if (until && (!shard.empty() || !trajectories.empty() || !out_file.empty())) {
    throw std::invalid_argument(
        "until: a run to a requested precision decides how many trajectories it takes as it "
        "goes, so it cannot be split with --shard or --trajectories nor written as a partial "
        "with --out; run it whole (nhsim run SPEC) or submit it to nhsimd");
  }
  const nhsim::TrajectoryRange range = !shard.empty() ? nhsim::client::parse_shard(shard, n)
                                       : !trajectories.empty()
                                           ? nhsim::client::parse_trajectories(trajectories, n)
                                           : nhsim::TrajectoryRange{0, n};
  if ((range.begin != 0 || range.end != n) && (!json_file.empty() || !csv_file.empty())) {
    throw std::invalid_argument(
        "--json and --csv need every trajectory; write the shard with --out and combine the "
        "shards with: nhsim merge PART... --json FILE");
  }
  if (out_file.empty() && (range.begin != 0 || range.end != n)) {
    throw std::invalid_argument("a shard needs --out PART (its statistics alone are no result)");
  }
  // Every output is checked before the run, not found unwritable after it.
  for (const std::string& file : {out_file, json_file, csv_file}) {
    if (!file.empty()) nhsim::client::check_writable(file);
  }
  const bool tty = isatty(fileno(stderr)) != 0;
  nhsim::client::ProgressPrinter printer(stderr, tty, run_name(spec_file, range, n));
  nhsim::client::JsonProgress json_lines(stderr);
  v1::Job job;
  job.set_state(v1::RUNNING);
  job.set_system(spec.system());
  const auto show = [&](std::int64_t done, std::int64_t total) {
    if (json_progress) {
      json_lines.update(done, total);
      return;
    }
    job.set_trajectories_done(done);
    job.set_trajectories_total(total);
    printer.update(job);
  };
  const auto finish_progress = [&] {
    json_lines.finish();
    printer.finish();
  };
  if (until) {
    const v1::EnsembleResult result = nhsim::client::run_until(spec, threads, show);
    finish_progress();
    report(result, json_file, csv_file, json_output);
    return;
  }
  const v1::PartialResult partial = nhsim::client::run_range(spec, range, threads, show);
  finish_progress();
  report_partial(partial, out_file, json_file, csv_file, threads, json_output);
}

/// nhsim merge: partial result files into one, in the order given (any order gives the same).
void merge_local(const std::vector<std::string>& part_files, bool allow_mixed_builds, int threads,
                 const std::string& out_file, const std::string& json_file,
                 const std::string& csv_file, bool json_output) {
  const v1::PartialResult merged = nhsim::client::merge_files(part_files, allow_mixed_builds);
  if (out_file.empty() && json_file.empty() && csv_file.empty() &&
      !nhsim::client::complete(merged)) {
    try {
      (void)nhsim::client::finish(merged, threads);  // names the missing ranges
    } catch (const nhsim::PartialMismatch& e) {
      throw std::invalid_argument(std::string(e.what()) +
                                  ": merge their parts too, or give --out PART to keep this merge");
    }
  }
  report_partial(merged, out_file, json_file, csv_file, threads, json_output);
}

/// The connection the global options describe. The token: --token-file, else $NHSIM_TOKEN.
nhsim::client::Connection connection(const std::string& server, const std::string& tls_ca, bool tls,
                                     const std::string& tls_cert, const std::string& tls_key,
                                     const std::string& token_file, int max_message_mb) {
  using nhsim::client::read_text_file;
  nhsim::client::Connection c;
  c.address = server;
  c.max_message_mb = max_message_mb;
  c.tls = tls || !tls_ca.empty() || !tls_cert.empty();
  if (!tls_ca.empty()) c.tls_ca = read_text_file(tls_ca);
  if (tls_cert.empty() != tls_key.empty()) {
    throw std::invalid_argument("--tls-cert and --tls-key: give both or neither");
  }
  if (!tls_cert.empty()) {
    c.tls_cert = read_text_file(tls_cert);
    c.tls_key = read_text_file(tls_key);
  }
  if (!token_file.empty()) {
    c.token = read_text_file(token_file);
  } else if (const char* token = std::getenv("NHSIM_TOKEN"); token != nullptr) {
    c.token = token;
  }
  while (!c.token.empty() && std::isspace(static_cast<unsigned char>(c.token.back()))) {
    c.token.pop_back();  // a token file ends with a newline
  }
  return c;
}

/// nhsim token: a new random token for `identity`; its hash line goes to the tokens file.
void make_token(const std::string& identity, bool admin, const std::string& append_to,
                bool json_output) {
  const std::string token = "nhsim_" + nhsim::wire::random_hex(32);
  const std::string line = nhsim::wire::token_line(token, identity, admin);
  if (append_to.empty()) {
    std::cerr << "add this line to nhsimd's --tokens-file:\n"
              << line << '\n'
              << "the token (give it to " << identity << "; it is shown only once):\n";
  } else {
    std::ofstream out(append_to, std::ios::app);
    out << line << '\n';
    if (!out.flush()) throw std::runtime_error(append_to + ": cannot append");
    std::cerr << "added " << identity << (admin ? " (admin)" : "") << " to " << append_to
              << "; the token (shown only once):\n";
  }
  if (json_output) {  // identity, token and line hold no character that JSON must escape
    std::cout << "{\n  \"identity\": \"" << identity
              << "\",\n  \"admin\": " << (admin ? "true" : "false") << ",\n  \"token\": \"" << token
              << "\",\n  \"line\": \"" << line << "\"\n}\n";
  } else {
    std::cout << token << '\n';
  }
}

/// Exit status for a job that ended: 0 when it succeeded.
int exit_status(const v1::Job& job) { return job.state() == v1::SUCCEEDED ? 0 : kJobUnsuccessful; }

/// For a command line whose first word is not a subcommand: "unknown command 'W'", with the
/// nearest subcommand as a suggestion (or `jobs` for the words people type to list jobs).
std::string unknown_command_hint(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    const std::string previous = argv[i - 1];
    const CLI::Option* option = app.get_option_no_throw(previous);
    if (option != nullptr && option->get_items_expected_min() > 0) continue;  // its value
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == word) return "";
      names.push_back(sub->get_name());
    }
    std::string best = nhsim::client::nearest(word, names);
    if (word == "list" || word == "ls" || word == "ps" || word == "status") best = "jobs";
    return "nhsim: unknown command '" + word + "'" +
           (best.empty() ? "" : "; did you mean '" + best + "'?") + " (nhsim --help lists them)";
  }
  return "";
}

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
  std::string output = "table";
  app.add_option("--output", output,
                 "what goes to stdout: table (for people) or json (the protobuf JSON of the "
                 "answer: Job, result, catalogue, job list; for scripts)")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  std::string tls_ca, tls_cert, tls_key, token_file;
  bool tls = false;
  app.add_option("--tls-ca", tls_ca,
                 "TLS, verifying the server's certificate with these PEM CA certificates");
  app.add_flag("--tls", tls, "TLS, verifying the server's certificate with the system's CAs");
  app.add_option("--tls-cert", tls_cert, "mutual TLS: PEM client certificate chain");
  app.add_option("--tls-key", tls_key, "mutual TLS: PEM client private key");
  app.add_option("--token-file", token_file,
                 "file holding the bearer token (default: the environment variable NHSIM_TOKEN)");
  int max_message_mb = 64;
  app.add_option("--max-message-mb", max_message_mb,
                 "largest request sent, MiB: nhsimd's --max-message-mb (a larger spec is refused "
                 "before it is sent)")
      ->capture_default_str()
      ->check(CLI::Range(1, 2047));

  auto* systems = app.add_subcommand("systems", "list the systems and their parameters");
  auto* integrators = app.add_subcommand("integrators", "list the integrators");

  std::string spec_file;
  bool wait = false;
  std::string json_file;
  std::string csv_file;
  auto* submit =
      app.add_subcommand("submit", "submit a JSON spec (nhsim.v1.SubmitEnsembleRequest)");
  submit->add_option("SPEC", spec_file, "spec file (JSON; - reads standard input)")->required();
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
  bool so_far = false;
  result->add_flag("--so-far", so_far,
                   "of a running job, the statistics of the trajectories its latest checkpoint "
                   "holds (a finished job's result either way)");

  auto* cancel = app.add_subcommand("cancel", "ask a job to stop");
  cancel->add_option("JOB", job_id, "job id")->required();

  auto* jobs = app.add_subcommand("jobs", "list the jobs the server keeps, oldest first");
  auto* remove = app.add_subcommand("delete", "remove a finished job and its result");
  remove->add_option("JOB", job_id, "job id")->required();

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

  std::string shard;
  std::string trajectories;
  std::string out_file;
  int threads = 0;
  auto* run = app.add_subcommand(
      "run",
      "run a JSON spec in this process (needs no server): all its trajectories, printing the "
      "summary table, or one shard of them, writing its partial result for `nhsim merge`");
  run->add_option("SPEC", spec_file, "spec file (JSON; - reads standard input)")->required();
  auto* shard_option = run->add_option("--shard", shard,
                                       "run shard I of N (0 <= I < N): trajectories "
                                       "[floor(I n / N), floor((I + 1) n / N))");
  run->add_option("--trajectories", trajectories, "run trajectories [LO, HI)")
      ->excludes(shard_option);
  run->add_option("--out", out_file,
                  "write the partial result (binary nhsim.v1.PartialResult) to PART, atomically");
  run->add_option("--json", json_file, "write the result as JSON to FILE (whole spec only)");
  run->add_option("--csv", csv_file, "write the statistics as CSV to FILE (whole spec only)");
  run->add_option("--threads", threads, "threads (0: all cores)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  std::string progress_format = "auto";
  run->add_option("--progress", progress_format,
                  "auto: a bar on a terminal, plain lines otherwise; json: for programs, one "
                  "JSON object per line on stderr, {\"trajectories_done\": D, "
                  "\"trajectories_total\": T} (at most 5 a second, and the last), or on an "
                  "error {\"error\": {\"code\": \"INVALID_ARGUMENT\", \"message\": M}}")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "json"}));

  std::vector<std::string> part_files;
  auto* merge = app.add_subcommand(
      "merge",
      "merge partial results of one spec (from `nhsim run --out`); with every trajectory "
      "covered, print the summary table; needs no server");
  merge->add_option("PART", part_files, "partial result files")->required();
  merge->add_option("--out", out_file, "write the merged partial result to PART, atomically");
  merge->add_option("--json", json_file, "write the result as JSON to FILE");
  merge->add_option("--csv", csv_file, "write the statistics as CSV to FILE");
  merge->add_option("--threads", threads, "threads for the quantiles (0: all cores)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  bool allow_mixed_builds = false;
  merge->add_flag("--allow-mixed-builds", allow_mixed_builds,
                  "merge parts written by different builds or math libraries (their fingerprints "
                  "differ; the merge then matches no one machine's run)");

  std::string identity;
  std::string append_to;
  bool admin = false;
  auto* token = app.add_subcommand(
      "token",
      "make a new random bearer token for IDENTITY: prints the token and the line for "
      "nhsimd's --tokens-file (which holds only its SHA-256); needs no server");
  token->add_option("IDENTITY", identity, "who the token stands for: A-Z a-z 0-9 . _ @ -")
      ->required();
  token->add_flag("--admin", admin, "the identity may see, cancel and delete every job");
  token->add_option("--append", append_to, "append the line to this tokens file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit 1 like every other error (CLI11's own codes are 100 and up); --help 0.
    const std::string hint = unknown_command_hint(app, argc, argv);
    if (!hint.empty() && e.get_exit_code() != 0) {
      std::cerr << hint << '\n';
      return 1;
    }
    return app.exit(e) == 0 ? 0 : 1;
  }

  const bool json_output = output == "json";
  try {
    if (convergence->parsed()) {
      if (json_output) throw std::invalid_argument("--output json does not apply to convergence");
      std::cout << nhsim::client::convergence_table(nhsim::client::load_result(result_file),
                                                    reference);
      return 0;
    }
    if (run->parsed()) {
      run_local(spec_file, shard, trajectories, threads, out_file, json_file, csv_file, json_output,
                progress_format == "json");
      return 0;
    }
    if (merge->parsed()) {
      merge_local(part_files, allow_mixed_builds, threads, out_file, json_file, csv_file,
                  json_output);
      return 0;
    }
    if (token->parsed()) {
      make_token(identity, admin, append_to, json_output);
      return 0;
    }
    const Client client(
        connection(server, tls_ca, tls, tls_cert, tls_key, token_file, max_message_mb));
    if (systems->parsed()) {
      const v1::ListSystemsResponse answer = client.list_systems();
      if (json_output) {
        print_json(answer);
      } else {
        std::cout << nhsim::client::systems_table(answer);
      }
    } else if (integrators->parsed()) {
      const v1::ListIntegratorsResponse answer = client.list_integrators();
      if (json_output) {
        print_json(answer);
      } else {
        std::cout << nhsim::client::integrators_table(answer);
      }
    } else if (submit->parsed()) {
      if (!wait && (!json_file.empty() || !csv_file.empty())) {
        std::cerr << "error: --json and --csv need --wait (or use: nhsim result JOB --json FILE)\n";
        return kError;
      }
      const v1::SubmitEnsembleRequest request = nhsim::client::load_spec(spec_file);
      if (const std::size_t bytes = request.ByteSizeLong();
          bytes > static_cast<std::size_t>(max_message_mb) << 20) {
        char size[32];
        std::snprintf(size, sizeof size, "%.1f", static_cast<double>(bytes) / (1 << 20));
        throw std::invalid_argument(
            spec_file + ": the request is " + size +
            " MiB, more than --max-message-mb=" + std::to_string(max_message_mb) +
            " (nhsimd's limit by default; for a server started with a larger --max-message-mb, "
            "give the same here)");
      }
      const v1::Job job = client.submit(request);
      if (!wait) {
        if (json_output) {
          print_json(job);
        } else {
          std::cout << job.job_id() << '\n';
        }
        return 0;
      }
      std::cerr << "submitted job " << job.job_id() << '\n';
      const v1::Job final_job = follow(client, job.job_id());
      if (final_job.state() == v1::SUCCEEDED || final_job.state() == v1::CANCELLED) {
        report(client.result(job.job_id()), json_file, csv_file, json_output);
      } else if (json_output) {
        print_json(final_job);  // no result: the job says why
      }
      return exit_status(final_job);
    } else if (watch->parsed()) {
      const v1::Job final_job = follow(client, job_id);
      if (json_output) print_json(final_job);
      return exit_status(final_job);
    } else if (result->parsed()) {
      report(client.result(job_id, so_far), json_file, csv_file, json_output);
    } else if (cancel->parsed()) {
      const v1::Job job = client.cancel(job_id);
      if (json_output) {
        print_json(job);
      } else {
        std::cout << nhsim::client::job_line(job) << '\n';
      }
    } else if (jobs->parsed()) {
      const std::vector<v1::Job> listed = client.list_jobs();
      if (json_output) {
        v1::ListJobsResponse all;
        for (const v1::Job& job : listed) *all.add_jobs() = job;
        print_json(all);
      } else {
        std::cout << nhsim::client::jobs_table(listed, std::chrono::system_clock::now());
      }
    } else if (remove->parsed()) {
      client.delete_job(job_id);
      std::cerr << "job " << job_id << " deleted\n";
      if (json_output) {
        v1::DeleteJobResponse deleted;
        print_json(deleted);
      }
    }
  } catch (const std::exception& e) {
    if (run->parsed() && progress_format == "json") {
      // The code the server would answer: a bad spec or option is an invalid argument.
      const bool invalid = dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
      std::cerr << nhsim::client::json_error_line(invalid ? "INVALID_ARGUMENT" : "UNKNOWN",
                                                  e.what());
    } else {
      std::cerr << "nhsim: " << e.what() << '\n';
    }
    return kError;
  }
  return 0;
}
