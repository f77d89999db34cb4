// Kubernetes quantities as the spec accepts them for `cpu` and `memory` (the
// schema's cpuQuantity and memoryQuantity patterns).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::spec_detail {

inline constexpr std::size_t max_quantity_length = 32;
// The smallest CPU Kubernetes can grant is one millicore.
inline constexpr double min_cpu_cores = 0.001;

// Each returns the problem with `text`, completing a sentence that starts with
// the quoted text, or nothing when it is fine.
std::optional<std::string> cpu_quantity_problem(std::string_view text);
std::optional<std::string> memory_quantity_problem(std::string_view text);
// `storage` has memory's form (bytes with an optional suffix).
std::optional<std::string> storage_quantity_problem(std::string_view text);

} // namespace osf::spec_detail
