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
/// `s` made safe for a one-line message: control characters become \n, \t or \xNN, bytes that are not
/// valid UTF-8 become \xNN; past `max_bytes` (0 = no limit) it is cut at a character boundary and ends
/// in "... (N bytes)". Errors quote names and values from files through this.
std::string printable(std::string_view s, size_t max_bytes = 0);
/// True when `s` is valid UTF-8 (no overlong forms, surrogates or bytes past U+10FFFF).
bool is_utf8(std::string_view s);
/// `s` as valid UTF-8: every byte that is not part of a valid sequence becomes U+FFFD.
std::string valid_utf8(std::string_view s);
/// Lower-case runs of letters and digits: "NVIDIA A100-SXM4-40GB" -> {nvidia, a100, sxm4, 40gb}.
std::vector<std::string> alnum_tokens(std::string_view s);

}  // namespace perfpred
