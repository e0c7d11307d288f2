#include "net/http/http_keep_alive.h"

namespace netstack {

namespace {

struct HeadParse {
  bool head_request = false;
  bool headers_complete = false;
};

int OnHeadersComplete(http_parser* p) {
  auto* parse = static_cast<HeadParse*>(p->data);
  parse->headers_complete = true;
  // Stop with the head's state intact (the next message would reset it).
  http_parser_pause(p, 1);
  return ResponseHasNoBody(static_cast<int>(p->status_code), parse->head_request) ? 1 : 0;
}

const http_parser_settings& HeadSettings() {
  static const http_parser_settings settings = [] {
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_headers_complete = &OnHeadersComplete;
    return s;
  }();
  return settings;
}

}  // namespace

bool ResponseHasNoBody(int status_code, bool head_request) {
  return head_request || status_code / 100 == 1 || status_code == 204 || status_code == 304;
}

bool ResponseKeepsConnectionAlive(const http_parser& parser) {
  const bool ambiguous_framing = (parser.flags & F_CHUNKED) && (parser.flags & F_CONTENTLENGTH);
  // http_should_keep_alive: the version and Connection tokens, and a body not delimited by the
  // close. 101 switches to another protocol: the connection no longer carries HTTP/1.1.
  return http_should_keep_alive(&parser) && parser.status_code != 101 && !ambiguous_framing;
}

bool ResponseHeadKeepsConnectionAlive(std::string_view head, bool head_request) {
  HeadParse parse;
  parse.head_request = head_request;
  http_parser parser;
  http_parser_init(&parser, HTTP_RESPONSE);
  parser.data = &parse;
  parser.allow_chunked_length = 1;  // as HttpStreamParser reads responses
  http_parser_execute(&parser, &HeadSettings(), head.data(), head.size());
  const http_errno err = HTTP_PARSER_ERRNO(&parser);
  if (!parse.headers_complete || (err != HPE_OK && err != HPE_PAUSED)) return false;
  return ResponseKeepsConnectionAlive(parser);
}

}  // namespace netstack
