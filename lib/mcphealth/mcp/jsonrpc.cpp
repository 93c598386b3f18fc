#include <mcphealth/mcp/jsonrpc.hpp>

#include <mcphealth/util/version.hpp>

namespace mcphealth::mcp {

namespace json = boost::json;

std::string request_line(std::int64_t id, std::string_view method, const json::object& params) {
  json::object msg{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.empty()) msg["params"] = params;
  return json::serialize(msg); // Boost.JSON escapes control characters, so the line has no raw newline
}

std::string notification_line(std::string_view method, const json::object& params) {
  json::object msg{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.empty()) msg["params"] = params;
  return json::serialize(msg);
}

json::object initialize_params(std::string_view version) {
  return {{"protocolVersion", version},
          {"capabilities", json::object()},
          {"clientInfo", {{"name", "mcphealth"}, {"version", util::version()}}}};
}

json::object modern_params() {
  json::object meta{{k_meta_protocol_version, k_modern_version},
                    {"io.modelcontextprotocol/clientCapabilities", json::object()},
                    {"io.modelcontextprotocol/clientInfo", {{"name", "mcphealth"}, {"version", util::version()}}}};
  return {{"_meta", std::move(meta)}};
}

MessageKind classify(const json::value& message) {
  if (!message.is_object()) return MessageKind::invalid;
  const json::object& o = message.get_object();
  const bool has_method = o.contains("method");
  const bool has_id = o.contains("id") && !o.at("id").is_null();
  if (!has_method && has_id && (o.contains("result") || o.contains("error"))) return MessageKind::response;
  if (has_method && has_id) return MessageKind::server_request;
  if (has_method) return MessageKind::notification;
  return MessageKind::invalid;
}

bool is_response_to(const json::value& message, std::int64_t id) {
  if (classify(message) != MessageKind::response) return false;
  const json::value& got = message.get_object().at("id");
  if (got.is_int64()) return got.get_int64() == id;
  if (got.is_uint64()) return static_cast<std::int64_t>(got.get_uint64()) == id;
  if (got.is_string()) return got.get_string() == std::to_string(id);
  return false;
}

std::string reply_to_server_request(const json::object& request) {
  json::object reply{{"jsonrpc", "2.0"}, {"id", request.at("id")}};
  const auto* method = request.if_contains("method");
  if (method != nullptr && method->is_string() && method->get_string() == "ping") {
    reply["result"] = json::object();
  } else {
    reply["error"] = {{"code", -32601}, {"message", "Method not found"}};
  }
  return json::serialize(reply);
}

} // namespace mcphealth::mcp
