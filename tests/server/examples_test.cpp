// Every spec in examples/ parses (protobuf JSON mapping, unknown fields are errors), converts to
// a core spec and passes the same validation a submission gets: a broken example is a test
// failure, not a surprise for the user who runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "nhsim/client/files.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/server/from_proto.hpp"

namespace nhsim::server {
namespace {

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(NHSIM_EXAMPLES_DIR)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Examples, DirectoryHasSpecs) { EXPECT_GE(example_files().size(), 5u); }

TEST(Examples, EverySpecParsesAndValidates) {
  for (const auto& path : example_files()) {
    SCOPED_TRACE(path.filename().string());
    try {
      const auto request = client::load_spec(path);
      const EnsembleSpec spec = from_proto(request);
      validate(spec);
      EXPECT_GT(trajectory_count(spec), 0);
      EXPECT_FALSE(request.label().empty()) << "every example says what it reproduces";
    } catch (const SpecError& e) {
      ADD_FAILURE() << "invalid spec: " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

}  // namespace
}  // namespace nhsim::server
