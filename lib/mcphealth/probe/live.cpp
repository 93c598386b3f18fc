// LiveProber, apart from the probe vocabulary (probe.cpp): it is what starts processes and loads libcurl, and the
// hook's front (cmd/front.cpp), which reads only, links the vocabulary without it.
#include <mcphealth/probe/probe.hpp>

#include <mcphealth/http/client.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::probe {

ProbeResult LiveProber::probe(const config::ResolvedServer& server, const ProbeSpec& spec) {
  // A declared tool check is a call on the probe's own connection, made once the server answered.
  std::optional<ToolCheck> tool;
  ProbeSpec run = spec;
  if (spec.check && spec.check->kind == config::CheckSpec::Kind::tool) {
    const util::JsonParse arguments = util::parse_json(spec.check->arguments);
    tool = ToolCheck{spec.check->tool,
                     arguments && arguments->is_object() ? arguments->get_object() : boost::json::object()};
    run.options.tool_check = &*tool;
    // A tool is called after a handshake: a liveness probe makes none, so the check makes the probe one.
    if (run.options.depth == Depth::liveness) run.options.depth = Depth::automatic;
  }
  ProbeResult r = probe_transport(server, run);
  if (spec.check && r.ok) {
    if (tool) {
      // The probe made the call; a server that answered no MCP (alive but silent) was not checked.
      if (r.check_passed == false) take_check(*spec.check, CheckFailure{r.reason, {}}, r);
      else if (!r.check_passed) take_check(*spec.check, CheckFailure{"not made: the server did not answer MCP", {}}, r);
    } else {
      take_check(*spec.check, run_check(*spec.check, server, spec.timeout_ms, [&] { return http_client(); }, m_clock), r);
    }
  }
  // A server's own error may quote a URL whole, credentials and all: no reason leaves the probe with one.
  r.reason = util::redact(r.reason);
  return r;
}

http::Client* LiveProber::http_client() {
  if (m_http == nullptr) {
    if (const auto loaded = http::curl_client()) m_http = *loaded;
  }
  return m_http;
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
