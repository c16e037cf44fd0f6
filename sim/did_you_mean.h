// "Did you mean": the one edit-distance suggestion used by every strict reader (config keys, --set
// paths, component types, parameter choices, model and trace names). Levenshtein distance over
// bytes; a candidate is suggested only within max(2, |word| / 3) edits, and on a tie the earliest
// candidate wins, so suggestions are deterministic. Pure functions, no state.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace t3sim {

// Levenshtein distance (insert, delete, substitute each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, or "" when none is within max(2, |word| / 3) edits.
std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" for the nearest candidate, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// The items joined by `separator` ("a, b, c"), for lists of allowed names in messages.
std::string join(const std::vector<std::string>& items, std::string_view separator);

}  // namespace t3sim
