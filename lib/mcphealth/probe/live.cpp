// LiveProber, apart from the probe vocabulary (probe.cpp): it is what starts processes and loads libcurl, and the
// hook's front (cmd/front.cpp), which reads only, links the vocabulary without it.
#include <mcphealth/probe/probe.hpp>

#include <mcphealth/http/client.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::probe {

ProbeResult LiveProber::probe(const config::ResolvedServer& server, const ProbeSpec& spec) {
  // A server's own error may quote a URL whole, credentials and all: no reason leaves the probe with one.
  ProbeResult r = probe_transport(server, spec);
  r.reason = util::redact(r.reason);
  return r;
}

ProbeResult LiveProber::probe_transport(const config::ResolvedServer& server, const ProbeSpec& spec) {
  if (const auto* stdio = std::get_if<config::StdioServer>(&server.transport)) {
    return probe_stdio(*stdio, spec.timeout_ms, spec.options, m_clock);
  }
  if (const auto* remote = std::get_if<config::HttpServer>(&server.transport)) {
    if (m_http == nullptr) {
      const auto loaded = http::curl_client();
      if (!loaded) {
        ProbeResult r;
        r.kind = Kind::not_probed;
        r.reason = "HTTP probes need libcurl (" + loaded.error().message + ")";
        return r;
      }
      m_http = *loaded;
    }
    return probe_http(*remote, spec.timeout_ms, spec.options, *m_http, m_clock);
  }
  ProbeResult r;
  r.kind = Kind::unsupported;
  r.reason = std::get<config::UnsupportedServer>(server.transport).reason;
  return r;
}

} // namespace mcphealth::probe
