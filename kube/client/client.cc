#include "kube/client/client.h"

#include "kube/client/api_error.h"

namespace ergobench::kube {

using nlohmann::json;

namespace {

// Text from outside (a pod's log, a user's spec) may be invalid UTF-8; a plain dump() throws
// on it. The bad bytes go out as U+FFFD instead.
std::string Encode(const json& object) { return object.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

void KubeClient::Count(const std::string& verb) {
  std::lock_guard<std::mutex> lock(counts_mutex_);
  ++counts_[verb];
}

std::map<std::string, uint64_t> KubeClient::RequestCounts() const {
  std::lock_guard<std::mutex> lock(counts_mutex_);
  return counts_;
}

StatusOr<json> KubeClient::Exchange(const std::string& verb, HttpRequest request) {
  Count(verb);
  ASSIGN_OR_RETURN(HttpResponse response, transport_->Send(request));
  if (response.status < 200 || response.status >= 300) return ApiError(response.status, response.body);
  json body = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return Status::Internal(request.method + " " + request.path + ": the response is not JSON");
  }
  return body;
}

StatusOr<json> KubeClient::Get(const ApiResource& resource, const std::string& ns, const std::string& name) {
  return Exchange("get", {"GET", ResourcePath(resource, ns, name), ""});
}

StatusOr<ObjectList> KubeClient::List(const ApiResource& resource, const std::string& ns,
                                      const ListOptions& options) {
  ObjectList list;
  ListOptions page = options;
  if (!page.limit) page.limit = 500;
  std::string continue_token;
  do {
    std::string path = ResourcePath(resource, ns) + ListQuery(page, /*watch=*/false);
    if (!continue_token.empty()) path += "&continue=" + UrlEncode(continue_token);
    ASSIGN_OR_RETURN(json body, Exchange("list", {"GET", path, ""}));
    if (body.contains("items") && body["items"].is_array()) {
      for (auto& item : body["items"]) {
        // Items of a list carry no kind; put it back so that every object is self-describing.
        item["apiVersion"] = resource.ApiVersion();
        item["kind"] = resource.kind;
        list.items.push_back(std::move(item));
      }
    }
    const json metadata = body.value("metadata", json::object());
    list.resource_version = metadata.value("resourceVersion", "");
    continue_token = metadata.value("continue", "");
  } while (!continue_token.empty());
  return list;
}

StatusOr<json> KubeClient::Create(const ApiResource& resource, const std::string& ns, const json& object) {
  return Exchange("create", {"POST", ResourcePath(resource, ns), Encode(object)});
}

StatusOr<json> KubeClient::MergePatch(const ApiResource& resource, const std::string& ns, const std::string& name,
                                      const json& patch, const std::string& subresource) {
  return Exchange("patch", {"PATCH", ResourcePath(resource, ns, name, subresource), Encode(patch),
                            "application/merge-patch+json"});
}

StatusOr<json> KubeClient::Replace(const ApiResource& resource, const std::string& ns, const std::string& name,
                                   const json& object, const std::string& subresource) {
  return Exchange("update", {"PUT", ResourcePath(resource, ns, name, subresource), Encode(object)});
}

StatusOr<json> KubeClient::UpdateStatus(const ApiResource& resource, const json& object) {
  const json& metadata = object.at("metadata");
  return Replace(resource, metadata.value("namespace", ""), metadata.value("name", ""), object, "status");
}

StatusOr<json> KubeClient::Delete(const ApiResource& resource, const std::string& ns, const std::string& name,
                                  const DeleteOptions& options) {
  json body = {{"apiVersion", "v1"},
               {"kind", "DeleteOptions"},
               {"propagationPolicy", options.propagation == Propagation::kForeground ? "Foreground" : "Background"}};
  if (!options.uid.empty()) body["preconditions"] = {{"uid", options.uid}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  return Exchange("delete", {"DELETE", ResourcePath(resource, ns, name), Encode(body)});
}

Status KubeClient::Watch(const ApiResource& resource, const std::string& ns, const ListOptions& options,
                         const std::function<Status(WatchEvent&& event)>& on_event) {
  Count("watch");
  LineSplitter lines;
  auto on_line = [&on_event](std::string_view line) -> Status {
    ASSIGN_OR_RETURN(WatchEvent event, ParseWatchEvent(line));
    return on_event(std::move(event));
  };
  const HttpRequest request{"GET", ResourcePath(resource, ns) + ListQuery(options, /*watch=*/true), ""};
  ASSIGN_OR_RETURN(HttpResponse response,
                   transport_->Stream(request, [&](std::string_view chunk) { return lines.Feed(chunk, on_line); }));
  if (response.status != 200) return ApiError(response.status, response.body);
  if (lines.pending() > 0) return Status::Unavailable("watch stream ended inside an event");
  return Status::Ok();
}

}  // namespace ergobench::kube
