#include <mcphealth/proc/errno_name.hpp>

#include <cerrno>

namespace mcphealth::proc {

std::string errno_name(int err) {
  switch (err) {
  case ENOENT: return "ENOENT";
  case EACCES: return "EACCES";
  case EPERM: return "EPERM";
  case ENOEXEC: return "ENOEXEC";
  case ENOTDIR: return "ENOTDIR";
  case EISDIR: return "EISDIR";
  case ELOOP: return "ELOOP";
  case ENAMETOOLONG: return "ENAMETOOLONG";
  case E2BIG: return "E2BIG";
  case ENOMEM: return "ENOMEM";
  case EAGAIN: return "EAGAIN";
  case EMFILE: return "EMFILE";
  case ETXTBSY: return "ETXTBSY";
  case ECONNREFUSED: return "ECONNREFUSED";
  case ETIMEDOUT: return "ETIMEDOUT";
  default: {
    std::string out = "E"; // (not "E" + to_string: GCC 12 warns falsely about that)
    out += std::to_string(err);
    return out;
  }
  }
}

} // namespace mcphealth::proc
