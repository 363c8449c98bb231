#include "perfpred/util/json_file.hpp"

#include <fstream>

#include "perfpred/util/error.hpp"

namespace perfpred {

nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path.string() + ": is a directory; give the " + what + " (a JSON file)");
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string() + ": " + what + " not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open the " + what);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers out of range (1e400)
    throw InputError(path.string() + ": not valid JSON (" + std::string(e.what()) + ")");
  } catch (const std::ios_base::failure& e) {
    throw InputError(path.string() + ": cannot read the " + what + " (" + e.what() + ")");
  }
}

}  // namespace perfpred
