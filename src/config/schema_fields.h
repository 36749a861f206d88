#pragma once
// Building blocks shared by the experiment-config sub-schemas: a collector of problems and
// warnings, and a small declarative field table that checks an object's keys and types and fills
// defaults.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace det::config {

// The end of the deprecation warning of a setting that the harness of a Trial class still honours
// (min_validation_period, searcher.max_length, ...) and a Core API script never sees used.
inline constexpr char kOnlyTrialClasses[] = "only Trial classes (entrypoint: module:Class) read it";

// Collects every problem before failing, so the user can fix them all at once, plus the warnings of
// deprecated or ignored fields that were accepted.
class Problems {
 public:
  // `what` names the document in ToStatus(): "experiment", "master", "agent".
  explicit Problems(std::string what = "experiment") : what_(std::move(what)) {}
  // Records "<path>: <what>".
  void Add(absl::string_view path, absl::string_view what);
  // Records a value the document lacks, "<path>: <what>" with `what` saying it is required. A partial
  // document (a template, which the experiment's own config completes) may lack it: WithoutMissing().
  void Missing(absl::string_view path, absl::string_view what);
  // Records a finished line (already "<path>: ...").
  void AddLine(std::string line) {
    errors_.push_back(std::move(line));
    missing_.push_back(false);
  }
  void Warn(std::string line) { warnings_.push_back(std::move(line)); }

  bool empty() const { return errors_.empty(); }
  // The same problems less those recorded by Missing().
  Problems WithoutMissing() const;
  const std::vector<std::string>& errors() const { return errors_; }
  std::vector<std::string>& warnings() { return warnings_; }
  // InvalidArgument "invalid <what> configuration:" followed by one indented line per problem.
  absl::Status ToStatus() const;

 private:
  std::string what_;
  std::vector<std::string> errors_;
  std::vector<bool> missing_;  // one per error: recorded by Missing()
  std::vector<std::string> warnings_;
};

// "a.b" from ("a", "b"); "b" from ("", "b").
std::string JoinPath(absl::string_view path, absl::string_view key);
// "a[3]".
std::string IndexPath(absl::string_view path, size_t index);
// JSON type in words: null, boolean, integer, number, string, array, object.
std::string TypeName(const nlohmann::json& v);
// "<type> <value>" with the value shortened, e.g. `string "ten"`, for "got ..." messages.
std::string Describe(const nlohmann::json& v);

enum class Kind {
  kAny,     // anything; the caller checks it
  kInt,     // integer, optional range
  kNumber,  // integer or float, optional range
  kBool,
  kString,
  kEnum,            // one of `allowed`
  kStringList,      // array of strings
  kIntList,         // array of integers, each within the range
  kObject,          // free-form object
  kLength,          // exactly one of {batches|records|epochs: int >= min}
  kSearcherLength,  // a positive Length or a bare int >= 0
};

// One key of an object. `default_value` is stored when the key is absent or null (null means
// "unset" everywhere in expconf), so the defaulted config names every key of its schema.
struct Field {
  const char* name;
  Kind kind = Kind::kAny;
  nlohmann::json default_value = nullptr;
  std::optional<double> min;  // inclusive unless min_exclusive
  bool min_exclusive = false;
  std::optional<double> max;         // inclusive
  std::vector<std::string> allowed;  // kEnum
  bool int64 = false;  // kInt: the value is read as a 64-bit integer; else it must fit 32 bits
};

// Hints for keys that users commonly misplace, e.g. {"slots", "experiments use
// resources.slots_per_trial"}.
struct KeyHint {
  const char* key;
  const char* hint;
};

struct CheckOptions {
  bool fill_null_defaults = true;  // store null for absent keys without a default
  std::vector<KeyHint> hints;
};

// Checks `obj` against `fields`: null becomes {}; anything but an object is a problem ("must be an
// object, got ..."). Unknown keys are problems naming the allowed keys (or the hint). Each present
// field's type and range is checked; absent fields get their default. Returns false when `obj` is
// not an object (nothing else was checked).
bool CheckObject(nlohmann::json& obj, absl::string_view path, const std::vector<Field>& fields,
                 Problems& p, const CheckOptions& options = {});

// Checks one value against a field's kind and range (used for values outside tables).
// Returns false when a problem was added.
bool CheckValue(const nlohmann::json& v, absl::string_view path, const Field& field, Problems& p);

// True when obj[key] is present and not null.
bool IsSet(const nlohmann::json& obj, absl::string_view key);

// Adds "<path>: required<why>" when obj[key] is unset.
bool Require(const nlohmann::json& obj, absl::string_view path, absl::string_view key,
             absl::string_view why, Problems& p);

}  // namespace det::config
