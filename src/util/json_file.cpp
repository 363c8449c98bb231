#include "perfpred/util/json_file.hpp"

#include <cstdint>
#include <fstream>

#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

namespace {

struct TooDeep {};

}  // namespace

nlohmann::json parse_json(std::istream& in, const std::string& label) {
  // The callback sees the depth of every value as it is parsed, so a deep file stops at the limit
  // before anything recursive (destruction, serialisation of an error) runs over it.
  const nlohmann::json::parser_callback_t depth_limit = [](int depth, nlohmann::json::parse_event_t event,
                                                           nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        depth >= k_max_json_depth)
      throw TooDeep{};
    return true;
  };
  try {
    return nlohmann::json::parse(in, depth_limit);
  } catch (const TooDeep&) {
    throw InputError(label + ": nested deeper than " + std::to_string(k_max_json_depth) +
                     " levels of arrays and objects (the limit); perfpred's files need fewer than ten");
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers out of range (1e400)
    throw InputError(label + ": not valid JSON (" + printable(e.what(), 200) + ")");
  } catch (const std::ios_base::failure& e) {
    throw InputError(label + ": cannot read (" + std::string(e.what()) + ")");
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  const std::string name = printable(path.string(), 200);
  if (std::filesystem::is_directory(path, ec))
    throw InputError(name + ": is a directory; give the " + what + " (a JSON file)");
  if (!std::filesystem::exists(path, ec)) throw InputError(name + ": " + what + " not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open the " + what);
  return parse_json(in, name);
}

namespace {

/// The present, non-null value of `key` in `obj`, or nullptr.
const nlohmann::json* field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

[[noreturn]] void wrong_type(const nlohmann::json& v, const char* key, const char* want, const std::string& where) {
  throw InputError(where + ": field '" + key + "' must be " + want + " (got " + v.type_name() + " " +
                   json_excerpt(v, 40) + ")");
}

}  // namespace

std::string json_string(const nlohmann::json& obj, const char* key, const std::string& def, const std::string& where) {
  const nlohmann::json* v = field(obj, key);
  if (!v) return def;
  if (!v->is_string()) wrong_type(*v, key, "a string", where);
  return v->get<std::string>();
}

int64_t json_int(const nlohmann::json& obj, const char* key, int64_t def, const std::string& where) {
  const nlohmann::json* v = field(obj, key);
  if (!v) return def;
  if (!v->is_number_integer()) wrong_type(*v, key, "an integer", where);
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    wrong_type(*v, key, "an integer of at most 9.2e18", where);
  return v->get<int64_t>();
}

bool json_bool(const nlohmann::json& obj, const char* key, bool def, const std::string& where) {
  const nlohmann::json* v = field(obj, key);
  if (!v) return def;
  if (!v->is_boolean()) wrong_type(*v, key, "true or false", where);
  return v->get<bool>();
}

std::string json_excerpt(const nlohmann::json& j, size_t max_bytes) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() <= max_bytes) return printable(s);
  return printable(s, max_bytes);
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace perfpred
