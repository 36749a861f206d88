#pragma once
// Cuts a streamed body (a watch's events, a container's log) into lines as its pieces come: a
// piece may hold several lines or part of one.
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

namespace det::master::kube {

class LineSplitter {
 public:
  using OnLine = std::function<bool(std::string_view line)>;  // false: stop here

  // A line longer than `max_line` bytes is handed over in parts of that size (bounds memory when
  // a log line never ends).
  explicit LineSplitter(size_t max_line = std::numeric_limits<size_t>::max())
      : max_line_(max_line) {}

  // Calls `on_line` with each line `piece` completes, without its '\n'. False once `on_line` has
  // returned false (the rest of the piece is dropped).
  bool Feed(std::string_view piece, const OnLine& on_line);
  // At the end of the body: the last line, if it had no '\n'. False when `on_line` returned false.
  bool Finish(const OnLine& on_line);

 private:
  size_t max_line_;
  std::string pending_;  // the start of a line whose '\n' has not come yet
};

}  // namespace det::master::kube
