#include "common/local_postgres.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/shell_quote.h"

namespace det {
namespace {

namespace fs = std::filesystem;


// The newest installed server's bin directory (/usr/lib/postgresql/<version>/bin).
std::string ServerBin() {
  std::string best;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    fs::path bin = entry.path() / "bin";
    if (fs::exists(bin / "initdb") && bin.string() > best) best = bin.string();
  }
  return best;
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

absl::Status Run(const std::string& command, const std::string& what, const std::string& log) {
  if (std::system(command.c_str()) != 0) {
    return absl::InternalError(absl::StrCat(what, " failed (see ", log, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string AsPostgresUser(const std::string& command) {
  if (::geteuid() != 0) return command;
  return absl::StrCat("su postgres -s /bin/sh -c ", ShellQuote(command));
}

std::string LocalPostgres::ConnectionString() const { return ConnectionString(database); }
std::string LocalPostgres::ConnectionString(const std::string& dbname) const {
  return absl::StrCat("host=127.0.0.1 port=", port, " user=postgres dbname=", dbname, " connect_timeout=5");
}

// Where the server keeps its files for `dir`: `dir` itself, unless we are root and the postgres user
// cannot reach it (a directory under a private home, pytest's 0700 temporary directories): then a
// directory of its own under /var/tmp/determined-postgres, named after `dir`.
fs::path ServerDir(const fs::path& dir) {
  if (::geteuid() != 0) return dir;
  std::string probe = absl::StrCat("mkdir -p ", ShellQuote(dir.string()), " && test -w ", ShellQuote(dir.string()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  (void)std::system(absl::StrCat("chown postgres: ", ShellQuote(dir.string()), " 2>/dev/null").c_str());
  if (std::system(absl::StrCat(AsPostgresUser(probe), " 2>/dev/null").c_str()) == 0) return dir;
  return fs::path("/var/tmp/determined-postgres") / absl::StrCat(std::hash<std::string>{}(dir.string()));
}

absl::StatusOr<LocalPostgres> StartLocalPostgres(const LocalPostgresOptions& options) {
  std::string bin = ServerBin();
  if (bin.empty()) {
    return absl::FailedPreconditionError(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install postgresql");
  }
  fs::path dir = ServerDir(fs::absolute(options.dir));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  std::string log = (dir / "postgres.log").string();
  if (::geteuid() == 0) {
    if (std::system(absl::StrCat("chown postgres: ", ShellQuote(dir.string())).c_str()) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot give ", dir.string(), " to the postgres user (does it exist?)"));
    }
  }
  fs::path data = dir / "data";
  if (!fs::exists(data / "PG_VERSION")) {
    std::string initdb = absl::StrCat(bin, "/initdb -D ", ShellQuote(data.string()),
                                      " -U postgres --auth=trust -E UTF8 --no-locale >> ", ShellQuote(log), " 2>&1");
    if (absl::Status st = Run(AsPostgresUser(initdb), "initdb", log); !st.ok()) return st;
  }
  int port = options.port != 0 ? options.port : FreePort();
  std::string settings = absl::StrCat("-p ", port, " -k ", dir.string(), " -c listen_addresses=127.0.0.1",
                                      options.durable ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
  std::string start = absl::StrCat(bin, "/pg_ctl -D ", ShellQuote(data.string()), " -l ", ShellQuote(log),
                                   " -o ", ShellQuote(settings), " -w -t 60 start >> ", ShellQuote(log), " 2>&1");
  if (absl::Status st = Run(AsPostgresUser(start), "starting PostgreSQL", log); !st.ok()) return st;
  LocalPostgres pg{dir.string(), port, options.database};
  std::string exists = absl::StrCat(bin, "/psql -h 127.0.0.1 -p ", port, " -U postgres -d postgres -tAc ",
                                    ShellQuote(absl::StrCat("SELECT 1 FROM pg_database WHERE datname='",
                                                             options.database, "'")),
                                    " | grep -q 1");
  if (std::system(exists.c_str()) != 0) {
    std::string create = absl::StrCat(bin, "/createdb -h 127.0.0.1 -p ", port, " -U postgres ",
                                       ShellQuote(options.database), " >> ", ShellQuote(log), " 2>&1");
    if (absl::Status st = Run(create, "createdb", log); !st.ok()) return st;
  }
  return pg;
}

absl::Status StopLocalPostgres(const std::string& dir) {
  std::string bin = ServerBin();
  std::string data = (fs::path(dir) / "data").string();
  std::string log = (fs::path(dir) / "postgres.log").string();
  std::string stop = absl::StrCat(bin, "/pg_ctl -D ", ShellQuote(data), " -m fast -w stop >> ", ShellQuote(log), " 2>&1");
  return Run(AsPostgresUser(stop), "stopping PostgreSQL", log);
}

}  // namespace det
