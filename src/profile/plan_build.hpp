#pragma once
// Internal to src/profile: the per-op entry builder of plan.cpp, shared with the model expansion
// (model_plan.cpp), so model layers use exactly the sweeps' op_kind/params vocabulary.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "perfpred/profile/plan.hpp"

namespace perfpred {

/// One grid combination: key -> integer or string value, as a sweep's "grid"/"configs" give it.
using PlanRaw = std::map<std::string, nlohmann::json>;

/// Fill `e` (op_kind, phase, precision, has_precision set) from parameters; false with `why` for a
/// combination that is not a valid configuration; InputError naming `where` for a missing key.
bool build_plan_entry(PlanEntry& e, const PlanRaw& raw, const std::string& where, std::string& why);

/// "<op_kind>|<phase>|<precision>|<attrs>".
std::string plan_entry_id(const PlanEntry& e);

}  // namespace perfpred
