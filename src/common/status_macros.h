#pragma once
// RETURN_IF_ERROR / ASSIGN_OR_RETURN: propagate absl::Status values without exceptions.

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define DET_CONCAT_INNER(a, b) a##b
#define DET_CONCAT(a, b) DET_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status det_status_ = (expr);       \
    if (!det_status_.ok()) return det_status_; \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  DET_ASSIGN_OR_RETURN_IMPL(DET_CONCAT(det_statusor_, __LINE__), lhs, expr)

#define DET_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
