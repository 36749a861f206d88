#include "master/rm/kubernetes/line_splitter.h"

namespace det::master::kube {

bool LineSplitter::Feed(std::string_view piece, const OnLine& on_line) {
  while (!piece.empty()) {
    size_t newline = piece.find('\n');
    size_t take = newline == std::string_view::npos ? piece.size() : newline;
    if (max_line_ > 0 && pending_.size() + take > max_line_) {
      // Too long: the part that fills max_line_ goes as a line of its own.
      size_t room = max_line_ - pending_.size();
      pending_.append(piece.substr(0, room));
      piece.remove_prefix(room);
      std::string line = std::move(pending_);
      pending_.clear();
      if (!on_line(line)) return false;
      continue;
    }
    if (newline == std::string_view::npos) {
      pending_.append(piece);
      return true;
    }
    bool keep_going;
    if (pending_.empty()) {
      keep_going = on_line(piece.substr(0, newline));
    } else {
      pending_.append(piece.substr(0, newline));
      std::string line = std::move(pending_);
      pending_.clear();
      keep_going = on_line(line);
    }
    if (!keep_going) return false;
    piece.remove_prefix(newline + 1);
  }
  return true;
}

bool LineSplitter::Finish(const OnLine& on_line) {
  if (pending_.empty()) return true;
  std::string line = std::move(pending_);
  pending_.clear();
  return on_line(line);
}

}  // namespace det::master::kube
