// The libcurl client, resolved symbol by symbol from a dlopen'd libcurl: the binary never links it.
#include <mcphealth/http/client.hpp>

#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/errno_name.hpp>
#include <mcphealth/util/version.hpp>

#include <curl/curl.h>

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <sys/socket.h>
#include <unistd.h>

namespace mcphealth::http {

namespace {

constexpr std::size_t k_max_collected_body = 1 << 20;

/// The libcurl functions we use, looked up once.
struct CurlApi {
  CURLcode (*global_init)(long) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  CURLU* (*url)() = nullptr;
  CURLUcode (*url_set)(CURLU*, CURLUPart, const char*, unsigned int) = nullptr;
  CURLUcode (*url_get)(const CURLU*, CURLUPart, char**, unsigned int) = nullptr;
  void (*url_cleanup)(CURLU*) = nullptr;
  void (*free)(void*) = nullptr;
};

template <typename Fn>
bool resolve(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(::dlsym(lib, name));
  return fn != nullptr;
}

/// Per-transfer state the callbacks write into.
struct Transfer {
  const Request* request = nullptr;
  Response* response = nullptr;
  bool stopped = false;
  /// Bytes of response headers so far: past `k_max_header_bytes` the transfer is ended.
  std::size_t header_bytes = 0;
  bool header_too_large = false;
};

/// The most response-header bytes read: a server that sends more is broken or hostile.
constexpr std::size_t k_max_header_bytes = 256 * 1024;

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->header_bytes += size * count;
  if (t->header_bytes > k_max_header_bytes) {
    t->header_too_large = true;
    return 0; // ends the transfer with CURLE_WRITE_ERROR
  }
  std::string_view line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.substr(0, 5) == "HTTP/") {
    t->response->headers.clear(); // a new response (after 100 Continue, say)
    if (auto sp = line.find(' '); sp != std::string_view::npos) t->response->status_so_far = std::atol(line.data() + sp + 1);
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    t->response->headers.emplace_back(std::move(name), std::string(value));
  }
  return size * count;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view chunk(data, size * count);
  if (t->request->on_body) {
    if (!t->request->on_body(chunk, *t->response)) {
      t->stopped = true;
      return 0; // makes libcurl end the transfer with CURLE_WRITE_ERROR
    }
    return chunk.size();
  }
  const std::size_t room = k_max_collected_body - std::min(k_max_collected_body, t->response->body.size());
  t->response->body.append(chunk.substr(0, room));
  return chunk.size();
}

// The socket callbacks hand the transfer's socket to its Cancel token, so another thread can shut it down.
curl_socket_t open_socket(void* user, curlsocktype, curl_sockaddr* addr) {
  auto* cancel = static_cast<Cancel*>(user);
  if (cancel->cancelled()) return CURL_SOCKET_BAD;
  int fd = platform::socket_cloexec(addr->family, addr->socktype, addr->protocol);
  if (fd >= 0) cancel->attach(fd);
  return fd;
}

int close_socket(void* user, curl_socket_t fd) {
  static_cast<Cancel*>(user)->detach(fd);
  return ::close(fd);
}

class CurlClient final : public Client {
public:
  explicit CurlClient(CurlApi api) : m_api(api) {}
  Response perform(const Request& request) override;
  std::optional<std::string> resolve_reference(const std::string& base, const std::string& reference) override {
    // A CURLU holding `base` resolves a relative URL set on it against `base`.
    std::unique_ptr<CURLU, void (*)(CURLU*)> url(m_api.url(), m_api.url_cleanup);
    if (!url || m_api.url_set(url.get(), CURLUPART_URL, base.c_str(), 0) != CURLUE_OK ||
        m_api.url_set(url.get(), CURLUPART_URL, reference.c_str(), 0) != CURLUE_OK) {
      return std::nullopt;
    }
    char* text = nullptr;
    if (m_api.url_get(url.get(), CURLUPART_URL, &text, 0) != CURLUE_OK || text == nullptr) return std::nullopt;
    std::string out(text);
    m_api.free(text);
    return out;
  }

private:
  std::string describe_failure(CURL* curl, CURLcode code, const Request& request);
  CurlApi m_api;
};

/// The host and port of `secret`, from its redacted form: userinfo never shows.
std::string host_of(const util::SecretUrl& secret) {
  const std::string url = secret.shown();
  std::size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  std::size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  return authority;
}

std::string CurlClient::describe_failure(CURL* curl, CURLcode code, const Request& request) {
  long os_errno = 0;
  m_api.easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  char* ip = nullptr;
  long port = 0;
  m_api.easy_getinfo(curl, CURLINFO_PRIMARY_IP, &ip);
  m_api.easy_getinfo(curl, CURLINFO_PRIMARY_PORT, &port);
  const std::string where = (ip != nullptr && *ip != '\0' && port > 0)
                                ? std::string(ip) + ":" + std::to_string(port)
                                : host_of(request.url);
  switch (code) {
  case CURLE_COULDNT_CONNECT:
    return "connect " + (os_errno != 0 ? proc::errno_name(static_cast<int>(os_errno)) : std::string("failed")) + " " +
           where;
  case CURLE_COULDNT_RESOLVE_HOST: return "getaddrinfo ENOTFOUND " + host_of(request.url);
  case CURLE_COULDNT_RESOLVE_PROXY: return "proxy: getaddrinfo ENOTFOUND (check https_proxy/http_proxy)";
  case CURLE_OPERATION_TIMEDOUT: return "request timed out";
  case CURLE_PEER_FAILED_VERIFICATION: return "TLS: certificate verify failed";
  case CURLE_SSL_CONNECT_ERROR: return "TLS: handshake failed";
  case CURLE_GOT_NOTHING: return "socket hang up (empty reply from " + where + ")";
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR: return "socket hang up (connection reset by " + where + ")";
  case CURLE_URL_MALFORMAT: return "invalid URL: " + request.url.shown();
  case CURLE_UNSUPPORTED_PROTOCOL: return "unsupported URL scheme (only http and https are probed): " + request.url.shown();
  // libcurl's own limit on one header line (100 KB) surfaces as "out of memory".
  case CURLE_OUT_OF_MEMORY: return "response header too large, or out of memory, reading from " + where;
  default: return std::string("HTTP request failed: ") + m_api.easy_strerror(code);
  }
}

Response CurlClient::perform(const Request& request) {
  Response response;
  CURL* curl = m_api.easy_init();
  if (curl == nullptr) {
    response.error = "HTTP request failed: curl_easy_init";
    return response;
  }
  Transfer transfer{&request, &response, false};
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) headers = m_api.slist_append(headers, (name + ": " + value).c_str());
  const char* user_no_proxy = std::getenv("no_proxy");
  if (user_no_proxy == nullptr) user_no_proxy = std::getenv("NO_PROXY");
  const std::string no_proxy =
      no_proxy_list(user_no_proxy ? std::optional<std::string>(user_no_proxy) : std::nullopt);
  const std::string user_agent = "mcphealth/" + std::string(util::version());

  m_api.easy_setopt(curl, CURLOPT_URL, request.url.for_transport().c_str());
  // http and https only, redirects included: never file://, gopher://, dict:// or any other scheme libcurl knows.
  m_api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  m_api.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  // A private CA: MCPHEALTH_CA_BUNDLE, else CURL_CA_BUNDLE, else SSL_CERT_FILE (as curl's own tool reads them).
  for (const char* variable : {"MCPHEALTH_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"}) {
    if (const char* bundle = std::getenv(variable); bundle != nullptr && *bundle != '\0') {
      m_api.easy_setopt(curl, CURLOPT_CAINFO, bundle);
      break;
    }
  }
  m_api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  m_api.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_ms));
  m_api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.timeout_ms));
  m_api.easy_setopt(curl, CURLOPT_NOPROXY, no_proxy.c_str());
  m_api.easy_setopt(curl, CURLOPT_USERAGENT, user_agent.c_str());
  m_api.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  m_api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, &on_header);
  m_api.easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  m_api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
  m_api.easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  if (request.cancel) {
    m_api.easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, &open_socket);
    m_api.easy_setopt(curl, CURLOPT_OPENSOCKETDATA, request.cancel.get());
    m_api.easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, &close_socket);
    m_api.easy_setopt(curl, CURLOPT_CLOSESOCKETDATA, request.cancel.get());
  }
  if (request.method == "POST") {
    m_api.easy_setopt(curl, CURLOPT_POST, 1L);
    m_api.easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    m_api.easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  } else if (request.method != "GET") {
    m_api.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  const CURLcode code = m_api.easy_perform(curl);
  long status = 0;
  m_api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && transfer.stopped)) {
    response.status = status;
  } else if (transfer.header_too_large) {
    response.error = "response header too large (over " + std::to_string(k_max_header_bytes / 1024) + " KiB)";
  } else {
    response.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    if (response.timed_out) {
      curl_off_t connect_us = 0; // 0: the connection never completed
      m_api.easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us);
      response.connected = connect_us > 0 || status > 0;
    }
    response.error = describe_failure(curl, code, request);
    // A status that arrived before a stream timed out still tells us the server answered.
    if (response.timed_out && status > 0 && request.on_body) response.status = status;
  }
  m_api.slist_free_all(headers);
  m_api.easy_cleanup(curl);
  return response;
}

} // namespace

util::Result<Client*> curl_client() {
  static std::once_flag once;
  static CurlClient* client = nullptr;
  static std::string load_error;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {"libcurl.so.4", "libcurl.4.dylib", "libcurl.dylib", "libcurl.so"}) {
      if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (lib == nullptr) {
      const char* why = ::dlerror();
      load_error = std::string("cannot load libcurl: ") + (why ? why : "not found");
      return;
    }
    CurlApi api;
    const bool ok = resolve(lib, "curl_global_init", api.global_init) && resolve(lib, "curl_easy_init", api.easy_init) &&
                    resolve(lib, "curl_easy_setopt", api.easy_setopt) &&
                    resolve(lib, "curl_easy_perform", api.easy_perform) &&
                    resolve(lib, "curl_easy_getinfo", api.easy_getinfo) &&
                    resolve(lib, "curl_easy_cleanup", api.easy_cleanup) &&
                    resolve(lib, "curl_slist_append", api.slist_append) &&
                    resolve(lib, "curl_slist_free_all", api.slist_free_all) &&
                    resolve(lib, "curl_easy_strerror", api.easy_strerror) && resolve(lib, "curl_url", api.url) &&
                    resolve(lib, "curl_url_set", api.url_set) && resolve(lib, "curl_url_get", api.url_get) &&
                    resolve(lib, "curl_url_cleanup", api.url_cleanup) && resolve(lib, "curl_free", api.free);
    if (!ok) {
      load_error = "cannot load libcurl: a symbol is missing";
      return;
    }
    api.global_init(CURL_GLOBAL_DEFAULT);
    client = new CurlClient(api); // lives as long as the process, like the library
  });
  if (client == nullptr) return util::fail(load_error);
  return static_cast<Client*>(client);
}

} // namespace mcphealth::http
