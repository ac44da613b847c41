// The registered user-defined systems (system_registry.hpp).
#include "nhsim/server/system_registry.hpp"

#include <stdexcept>

namespace nhsim::server {

SystemRegistry::SystemRegistry(DurableStore* durable) : durable_(durable) {
  if (durable_ == nullptr) return;
  for (const StoredSystem& stored : durable_->load_systems()) {
    RegisteredSystem system{stored.name, {}, stored.description, stored.created_ms};
    if (!system.definition.ParseFromString(stored.definition)) {
      throw std::runtime_error(durable_->path().string() + ": the stored system " + stored.name +
                               " of " + stored.owner + " does not parse");
    }
    by_owner_and_name_.emplace(std::make_pair(stored.owner, stored.name), std::move(system));
  }
}

SystemRegistry::Added SystemRegistry::add(const std::string& owner, RegisteredSystem system) {
  const std::lock_guard lock(mutex_);
  auto key = std::make_pair(owner, system.name);
  if (by_owner_and_name_.count(key) != 0) return Added::kNameTaken;
  std::size_t owned = 0;
  for (auto it = by_owner_and_name_.lower_bound(std::make_pair(owner, std::string()));
       it != by_owner_and_name_.end() && it->first.first == owner; ++it) {
    ++owned;
  }
  if (owned >= kMaxPerOwner) return Added::kFull;
  if (durable_ != nullptr) {
    durable_->insert_system(StoredSystem{owner, system.name, system.definition.SerializeAsString(),
                                         system.description, system.created_ms});
  }
  by_owner_and_name_.emplace(std::move(key), std::move(system));
  return Added::kAdded;
}

bool SystemRegistry::remove(const std::string& owner, const std::string& name) {
  const std::lock_guard lock(mutex_);
  const auto it = by_owner_and_name_.find(std::make_pair(owner, name));
  if (it == by_owner_and_name_.end()) return false;
  if (durable_ != nullptr) durable_->erase_system(owner, name);
  by_owner_and_name_.erase(it);
  return true;
}

std::optional<RegisteredSystem> SystemRegistry::find(const std::string& owner,
                                                     const std::string& name) const {
  const std::lock_guard lock(mutex_);
  const auto it = by_owner_and_name_.find(std::make_pair(owner, name));
  if (it == by_owner_and_name_.end()) return std::nullopt;
  return it->second;
}

std::vector<RegisteredSystem> SystemRegistry::of(const std::string& owner) const {
  const std::lock_guard lock(mutex_);
  std::vector<RegisteredSystem> out;
  for (auto it = by_owner_and_name_.lower_bound(std::make_pair(owner, std::string()));
       it != by_owner_and_name_.end() && it->first.first == owner; ++it) {
    out.push_back(it->second);
  }
  return out;
}

}  // namespace nhsim::server
