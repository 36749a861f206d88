#pragma once
// Configuration templates.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::master {

// A configuration template (reference §1f): an arbitrary JSON object stored as given; it is validated
// only when an experiment uses it.
struct Template {
  std::string name;
  std::string config_json;  // a JSON object
  int64_t workspace_id = 1;  // 1 = the default workspace
};

struct TemplateFilter {
  std::string name_contains;            // case-insensitive substring of the name; "" = any
  std::vector<int64_t> workspace_ids;   // empty = any
  bool descending = false;              // by name
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

struct TemplatePage {
  std::vector<Template> templates;
  int64_t total = 0;  // matching templates before offset/limit
};

class TemplateStore {
 public:
  virtual ~TemplateStore() = default;

  // Templates, keyed by name. Errors: NotFound `template "NAME" not found`, AlreadyExists
  // `template "NAME" already exists`.
  // Creates; AlreadyExists when the name is taken.
  virtual absl::Status InsertTemplate(const Template& tpl) = 0;
  // Creates or replaces (config and workspace).
  virtual absl::Status PutTemplate(const Template& tpl) = 0;
  virtual absl::StatusOr<Template> GetTemplate(const std::string& name) = 0;
  virtual absl::StatusOr<TemplatePage> ListTemplates(const TemplateFilter& filter) = 0;
  // Replaces the config of an existing template.
  virtual absl::Status UpdateTemplateConfig(const std::string& name, const std::string& config_json) = 0;
  // NotFound when `old_name` is unknown, AlreadyExists when `new_name` is taken.
  virtual absl::Status RenameTemplate(const std::string& old_name, const std::string& new_name) = 0;
  virtual absl::Status DeleteTemplate(const std::string& name) = 0;
};

}  // namespace det::master
