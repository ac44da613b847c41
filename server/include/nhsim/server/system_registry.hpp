// User-defined systems registered under a name by their owner (RegisterSystem): kept
// in memory and, with a durable store, written through to it, so that they survive restarts as
// the jobs do. A spec names a registered system in `system`; the service then submits the job
// with the stored definition as its custom_system, so every job carries its own copy. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nhsim/server/durable_store.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

struct RegisteredSystem {
  std::string name;
  nhsim::v1::CustomSystem definition;
  std::string description;
  std::int64_t created_ms = 0;
};

class SystemRegistry {
 public:
  /// `durable` (may be null: memory only) must outlive the registry; its systems are loaded.
  explicit SystemRegistry(DurableStore* durable);

  /// The most systems one owner may register.
  static constexpr std::size_t kMaxPerOwner = 100;

  enum class Added { kAdded, kNameTaken, kFull };
  /// Adds `system` for `owner`, unless the owner has one of that name or kMaxPerOwner (then
  /// nothing changes). Throws std::runtime_error when the durable store cannot write it.
  Added add(const std::string& owner, RegisteredSystem system);
  /// Removes the owner's system of that name; false when there is none.
  bool remove(const std::string& owner, const std::string& name);
  /// The owner's system of that name.
  std::optional<RegisteredSystem> find(const std::string& owner, const std::string& name) const;
  /// The owner's systems, by name.
  std::vector<RegisteredSystem> of(const std::string& owner) const;

 private:
  DurableStore* durable_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, RegisteredSystem> by_owner_and_name_;
};

}  // namespace nhsim::server
