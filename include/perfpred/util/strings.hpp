#pragma once
/// Small string helpers that know nothing of perfpred.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfpred {

/// Split on a single character; empty fields are kept.
std::vector<std::string> split(std::string_view s, char sep);
/// Trim ASCII whitespace on both ends.
std::string trim(std::string_view s);
/// Parse a whole string as int64; throws InputError naming `what` on failure.
int64_t parse_int64(std::string_view s, std::string_view what);
/// Parse a whole string as a finite double; throws InputError naming `what` on failure.
double parse_double(std::string_view s, std::string_view what);
/// Join items with a separator.
std::string join(const std::vector<std::string>& items, std::string_view sep);
/// Lower-case ASCII copy.
std::string to_lower(std::string_view s);
/// Lower-case runs of letters and digits: "NVIDIA A100-SXM4-40GB" -> {nvidia, a100, sxm4, 40gb}.
std::vector<std::string> alnum_tokens(std::string_view s);

}  // namespace perfpred
