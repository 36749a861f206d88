#pragma once
// An enum's names for the places that read and write them (SQL, JSON): one table per enum, looked up
// both ways. Tables are small, so a scan is as fast as a map.
#include <array>
#include <cstddef>
#include <optional>
#include <utility>

#include "absl/strings/string_view.h"

namespace det {

template <typename E, size_t N>
using EnumNames = std::array<std::pair<E, absl::string_view>, N>;

// The name of `value`; "UNSPECIFIED" for a value the table lacks.
template <typename E, size_t N>
absl::string_view NameIn(const EnumNames<E, N>& names, E value) {
  for (const auto& [v, text] : names) {
    if (v == value) return text;
  }
  return "UNSPECIFIED";
}

// The value named `name`, or nullopt.
template <typename E, size_t N>
std::optional<E> ValueIn(const EnumNames<E, N>& names, absl::string_view name) {
  for (const auto& [value, text] : names) {
    if (text == name) return value;
  }
  return std::nullopt;
}

}  // namespace det
