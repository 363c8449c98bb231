#pragma once
/// Reading a JSON document from a file with every failure as an InputError naming the file, and
/// writing JSON that survives the names and values such files carry.
#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>

#include <nlohmann/json.hpp>

namespace perfpred {

/// Deepest nesting of arrays and objects a JSON input may have. perfpred's own files need fewer than
/// ten levels; the limit keeps a hostile file (100,000 nested arrays) from exhausting the stack.
inline constexpr int k_max_json_depth = 128;

/// Parse the JSON file at `path`. `what` names it in errors ("budget file", "price file"): a missing
/// path, a directory, an unreadable file, invalid JSON, nesting deeper than k_max_json_depth or an
/// out-of-range number are InputErrors that name the path.
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& what);
/// Parse JSON from a stream with the same checks; `label` starts every error message.
nlohmann::json parse_json(std::istream& in, const std::string& label);

/// Optional fields of a JSON object read from a file: `def` where `obj` has no `key` (or holds null there), the value
/// where it has the type asked for, and otherwise an InputError "<where>: field '<key>' must be <type> (got <type>)"
/// (nlohmann's value() would throw its own type_error, which names neither the file nor the field).
std::string json_string(const nlohmann::json& obj, const char* key, const std::string& def, const std::string& where);
int64_t json_int(const nlohmann::json& obj, const char* key, int64_t def, const std::string& where);
bool json_bool(const nlohmann::json& obj, const char* key, bool def, const std::string& where);

/// `j` serialised compactly for an error message: at most `max_bytes` bytes of it, one line, any
/// invalid UTF-8 in its strings replaced.
std::string json_excerpt(const nlohmann::json& j, size_t max_bytes = 60);
/// `j.dump(indent)` where invalid UTF-8 in a string (a node name from a model) becomes U+FFFD instead
/// of an exception.
std::string dump_json(const nlohmann::json& j, int indent = -1);

}  // namespace perfpred
