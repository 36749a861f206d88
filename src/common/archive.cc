#include "common/archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/file_util.h"
#include "common/status_macros.h"

namespace det {
namespace {

struct ReaderCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriterCloser {
  void operator()(archive* a) const { archive_write_free(a); }
};

absl::Status CheckRelativePath(const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return absl::InvalidArgumentError(absl::StrCat("archive path \"", path, "\" is not relative"));
  }
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part == "..") {
      return absl::InvalidArgumentError(absl::StrCat("archive path \"", path, "\" leaves its root"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> CreateTarGz(const std::vector<ArchiveEntry>& entries) {
  for (const ArchiveEntry& e : entries) RETURN_IF_ERROR(CheckRelativePath(e.path));
  // `out` outlives the writer: freeing the writer flushes its last blocks into `out`.
  std::string out;
  std::unique_ptr<archive, WriterCloser> a(archive_write_new());
  archive_write_add_filter_gzip(a.get());
  archive_write_set_format_pax_restricted(a.get());
  auto on_write = [](archive*, void* client, const void* buf, size_t n) -> la_ssize_t {
    static_cast<std::string*>(client)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  if (archive_write_open(a.get(), &out, nullptr, on_write, nullptr) != ARCHIVE_OK) {
    return absl::InternalError(absl::StrCat("tar.gz: ", archive_error_string(a.get())));
  }
  for (const ArchiveEntry& e : entries) {
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(),
                                                                         archive_entry_free);
    archive_entry_set_pathname(entry.get(), e.path.c_str());
    archive_entry_set_filetype(entry.get(), e.is_directory ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry.get(), e.mode & 07777);
    archive_entry_set_size(entry.get(), e.is_directory ? 0 : static_cast<la_int64_t>(e.content.size()));
    archive_entry_set_mtime(entry.get(), e.mtime, 0);
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK) {
      return absl::InternalError(absl::StrCat("tar.gz header: ", archive_error_string(a.get())));
    }
    if (!e.is_directory && !e.content.empty() &&
        archive_write_data(a.get(), e.content.data(), e.content.size()) < 0) {
      return absl::InternalError(absl::StrCat("tar.gz data: ", archive_error_string(a.get())));
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) {
    return absl::InternalError(absl::StrCat("tar.gz close: ", archive_error_string(a.get())));
  }
  return out;
}

absl::StatusOr<std::vector<ArchiveEntry>> ReadTarGz(const std::string& tgz) {
  std::unique_ptr<archive, ReaderCloser> a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_memory(a.get(), tgz.data(), tgz.size()) != ARCHIVE_OK) {
    return absl::InvalidArgumentError(absl::StrCat("tar.gz: ", archive_error_string(a.get())));
  }
  std::vector<ArchiveEntry> out;
  archive_entry* entry = nullptr;
  while (true) {
    int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK) {
      return absl::InvalidArgumentError(absl::StrCat("tar.gz: ", archive_error_string(a.get())));
    }
    ArchiveEntry e;
    e.path = archive_entry_pathname(entry);
    while (e.path.size() > 1 && e.path.back() == '/') e.path.pop_back();
    if (e.path.rfind("./", 0) == 0) e.path = e.path.substr(2);
    if (e.path.empty() || e.path == ".") continue;
    RETURN_IF_ERROR(CheckRelativePath(e.path));
    e.is_directory = archive_entry_filetype(entry) == AE_IFDIR;
    e.mode = archive_entry_perm(entry);
    e.mtime = archive_entry_mtime(entry);
    if (!e.is_directory) {
      e.content.resize(static_cast<size_t>(archive_entry_size(entry)));
      if (!e.content.empty() && archive_read_data(a.get(), e.content.data(), e.content.size()) !=
                                    static_cast<la_ssize_t>(e.content.size())) {
        return absl::InvalidArgumentError(absl::StrCat("tar.gz: truncated entry ", e.path));
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

absl::Status ExtractTarGz(const std::string& tgz, const std::filesystem::path& dest) {
  ASSIGN_OR_RETURN(std::vector<ArchiveEntry> entries, ReadTarGz(tgz));
  RETURN_IF_ERROR(MakeDirs(dest));
  for (const ArchiveEntry& e : entries) {
    std::filesystem::path target = dest / e.path;
    if (e.is_directory) {
      RETURN_IF_ERROR(MakeDirs(target));
      continue;
    }
    RETURN_IF_ERROR(MakeDirs(target.parent_path()));
    RETURN_IF_ERROR(WriteFile(target, e.content));
    std::error_code ec;
    std::filesystem::permissions(target, static_cast<std::filesystem::perms>(e.mode & 0777), ec);
  }
  return absl::OkStatus();
}

}  // namespace det
