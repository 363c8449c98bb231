#pragma once
/// Reading a JSON document from a file with every failure as an InputError naming the file.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace perfpred {

/// Parse the JSON file at `path`. `what` names it in errors ("budget file", "price file"): a missing
/// path, a directory, an unreadable file, invalid JSON or an out-of-range number are InputErrors that
/// name the path.
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& what);

}  // namespace perfpred
