#pragma once
// Helpers shared by the subcommands (no CLI11 here).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfpred::cli {

/// Parse repeated "--input-shape NAME=D0,D1,..." values; throws InputError naming the bad value.
std::map<std::string, std::vector<int64_t>> parse_input_shapes(const std::vector<std::string>& specs);

/// Print a JSON document to stdout, 2-space indented, newline-terminated. Deterministic key order.
void print_json(const nlohmann::json& j);

/// Write `text` to `path` through `path.tmp` and a rename, so a reader never sees half a file.
/// `option` names the flag in errors ("--junit FILE: directory ... does not exist").
void write_text_file(const std::string& path, const std::string& text, const std::string& option);

}  // namespace perfpred::cli
