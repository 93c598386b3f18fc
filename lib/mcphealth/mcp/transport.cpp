#include <mcphealth/mcp/transport.hpp>

#include <mcphealth/util/json.hpp>

namespace mcphealth::mcp {

CallOutcome no_answer_in_time(std::string_view method) {
  CallOutcome out;
  out.status = CallOutcome::Status::timeout;
  out.timed_out = true;
  out.reason = "no answer to " + std::string(method) + " in time";
  return out;
}

CallOutcome outcome_of_response(const boost::json::object& response) {
  CallOutcome out;
  if (const boost::json::object* err = util::get_object(response, "error")) {
    out.status = CallOutcome::Status::rpc_error;
    out.error_code = util::get_int(*err, "code").value_or(0);
    out.error_message = util::get_string(*err, "message").value_or("");
    if (auto data = err->find("data"); data != err->end()) out.error_data = data->value();
  } else {
    out.status = CallOutcome::Status::result;
    if (const boost::json::object* result = util::get_object(response, "result")) out.result = *result;
  }
  return out;
}

} // namespace mcphealth::mcp
