// The catalogue (ListSystems / ListIntegrators), read from the two registries: AllSystems
// (nhsim/systems/registry.hpp) and AllIntegrators (nhsim/integrators/registry.hpp).
#include "nhsim/catalogue.hpp"

#include <cmath>
#include <sstream>
#include <tuple>

#include "custom/custom_entry.hpp"
#include "join.hpp"
#include "nhsim/integrators/registry.hpp"
#include "nhsim/model.hpp"
#include "nhsim/systems/registry.hpp"

namespace nhsim {

const std::vector<SystemEntry>& system_registry() {
  static const std::vector<SystemEntry> registry = std::apply(
      [](auto... systems) { return std::vector<SystemEntry>{decltype(systems)::entry()...}; },
      AllSystems{});
  return registry;
}

const SystemEntry* find_system(const std::string& name) {
  for (const auto& e : system_registry()) {
    if (e.info.name == name) return &e;
  }
  return nullptr;
}

std::map<std::string, double> complete_parameters(const SystemEntry& entry,
                                                  const std::map<std::string, double>& given) {
  std::map<std::string, double> out;
  for (const auto& p : entry.info.parameters) out[p.name] = p.default_value;
  for (const auto& [name, value] : given) {
    const std::string field = "parameters." + (name.size() <= 64 ? name : echo(name));
    const ParameterInfo* info = nullptr;
    for (const auto& p : entry.info.parameters) {
      if (p.name == name) info = &p;
    }
    if (info == nullptr) {
      std::string known;
      for (const auto& p : entry.info.parameters) known += (known.empty() ? "" : ", ") + p.name;
      throw SpecError(field, "unknown parameter of system '" + entry.info.name +
                                 "'; known: " + (known.empty() ? "(none)" : known));
    }
    if (!std::isfinite(value)) throw SpecError(field, "must be finite");
    if (info->integer && value != std::floor(value)) {
      throw SpecError(field, "must be an integer");
    }
    if (value < info->min_value || value > info->max_value) {
      std::ostringstream os;
      os << "must lie in [" << info->min_value << ", " << info->max_value << "], got " << value;
      throw SpecError(field, os.str());
    }
    out[name] = value;
  }
  return out;
}

std::vector<SystemInfo> list_systems() {
  std::vector<SystemInfo> out;
  for (const auto& e : system_registry()) out.push_back(e.info);
  return out;
}

std::vector<IntegratorInfo> list_integrators() { return all_integrator_infos(); }

SystemInfo custom_system_info(const CustomSystemDefinition* def) {
  SystemInfo info = custom_system_entry(def).info;
  if (def != nullptr) {
    std::erase_if(info.integrators, [&](const std::string& id) {
      return custom_integrator_problem(*def, id).has_value();
    });
  }
  return info;
}

std::optional<std::string> not_applicable(const std::string& system,
                                          const std::string& integrator) {
  const SystemEntry* e = find_system(system);
  if (e == nullptr) return "unknown system " + echo(system);
  return e->not_applicable(integrator);
}

}  // namespace nhsim
