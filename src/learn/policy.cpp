// Which predictor each part of a prediction uses (perfpred/learn/policy.hpp).
#include "perfpred/learn/policy.hpp"

#include <algorithm>

#include "perfpred/util/error.hpp"

namespace perfpred::learn {
namespace {

const std::vector<std::string> k_device_classes = {"datacenter", "desktop", "embedded", "hypothetical"};

std::string field(const nlohmann::json& r, const char* name, const std::string& where, bool required) {
  if (!r.contains(name)) {
    if (required) throw InputError(where + ": missing field " + name);
    return "*";
  }
  if (!r[name].is_string()) throw InputError(where + "." + name + ": must be a string");
  return r[name].get<std::string>();
}

// "*" or one of the values the parser accepts.
void check_value(const std::string& v, const std::string& where, const char* name) {
  if (v == "*") return;
  const std::string w = where + "." + name;
  if (std::string(name) == "device_class") {
    if (std::find(k_device_classes.begin(), k_device_classes.end(), v) == k_device_classes.end())
      throw InputError(w + ": '" + v + "' is not a device class (datacenter, desktop, embedded, hypothetical, *)");
  } else if (std::string(name) == "runtime") {
    runtime_from_string(v, w);
  } else if (std::string(name) == "mode") {
    mode_from_string(v, w);
  } else {
    precision_from_string(v, w);
  }
}

bool matches(const std::string& pattern, const std::string& value) { return pattern == "*" || pattern == value; }

std::string device_class(const GpuSpec& gpu) { return gpu.segment.empty() ? "hypothetical" : gpu.segment; }

std::string rule_text(const PolicyRule& r) {
  return r.part + " " + r.device_class + "/" + r.runtime + "/" + r.mode + "/" + r.precision;
}

}  // namespace

Policy policy_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object() || !j.contains("rules") || !j["rules"].is_array())
    throw InputError(label + ": field policy must be an object with an array \"rules\"");
  Policy p;
  for (size_t i = 0; i < j["rules"].size(); ++i) {
    const auto& r = j["rules"][i];
    const std::string where = label + ": policy.rules[" + std::to_string(i) + "]";
    if (!r.is_object()) throw InputError(where + ": must be an object");
    PolicyRule rule;
    rule.part = field(r, "part", where, true);
    if (rule.part != k_part_kernels && rule.part != k_part_host)
      throw InputError(where + ".part: '" + rule.part + "' is not a part (kernels, host)");
    rule.device_class = field(r, "device_class", where, false);
    rule.runtime = field(r, "runtime", where, false);
    rule.mode = field(r, "mode", where, false);
    rule.precision = field(r, "precision", where, false);
    check_value(rule.device_class, where, "device_class");
    check_value(rule.runtime, where, "runtime");
    check_value(rule.mode, where, "mode");
    check_value(rule.precision, where, "precision");
    const std::string pred = field(r, "predictor", where, true);
    if (pred != "learned" && pred != "analytical")
      throw InputError(where + ".predictor: '" + pred + "' must be \"learned\" or \"analytical\"");
    rule.learned = pred == "learned";
    rule.evidence = field(r, "evidence", where, true);
    if (rule.evidence.empty() || rule.evidence == "*")
      throw InputError(where + ".evidence: say what held-out figure or reason decides the rule");
    p.rules.push_back(std::move(rule));
  }
  return p;
}

nlohmann::json to_json(const Policy& p) {
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& r : p.rules)
    rules.push_back({{"part", r.part},
                     {"device_class", r.device_class},
                     {"runtime", r.runtime},
                     {"mode", r.mode},
                     {"precision", r.precision},
                     {"predictor", r.learned ? "learned" : "analytical"},
                     {"evidence", r.evidence}});
  return {{"rules", rules}};
}

PartDecision decide(const Policy& p, const std::string& part, const GpuSpec& gpu, const PredictOptions& opts,
                    bool has_part) {
  PartDecision d;
  d.part = part;
  const std::string cls = device_class(gpu);
  const PolicyRule* rule = nullptr;
  for (const auto& r : p.rules)
    if (r.part == part && matches(r.device_class, cls) && matches(r.runtime, to_string(opts.runtime)) &&
        matches(r.mode, to_string(opts.mode)) && matches(r.precision, to_string(opts.precision))) {
      rule = &r;
      break;
    }
  if (!has_part) {
    d.evidence = part == k_part_host ? "the bundle has no host-overhead booster for runtime " + to_string(opts.runtime)
                                     : "the bundle has no kernel boosters";
    if (rule) {
      d.rule = rule_text(*rule);
      d.evidence += "; held-out evidence: " + rule->evidence;
    }
    return d;
  }
  if (rule) {
    d.learned = rule->learned;
    d.rule = rule_text(*rule);
    d.evidence = rule->evidence;
    return d;
  }
  d.evidence = "no held-out evidence for " + part + " on a " + cls + " GPU with " + to_string(opts.runtime) + ", " +
               to_string(opts.mode) + ", " + to_string(opts.precision) + ": the analytical model predicts it";
  return d;
}

nlohmann::json to_json(const PartDecision& d) {
  nlohmann::json j = {{"predictor", d.learned ? "learned" : "analytical"}, {"evidence", d.evidence}};
  if (!d.rule.empty()) j["rule"] = d.rule;
  return j;
}

}  // namespace perfpred::learn
