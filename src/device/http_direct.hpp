// The direct transport of HttpTransport for an agent on this machine (a loopback host, which no
// proxy ever sees): one keep-alive TCP connection, each request one sendmsg and its answer read
// with blocking recv under SO_RCVTIMEO, parsed by Boost.Beast's HTTP/1.1 response parser (chunked
// and length-delimited bodies, the answer cap as Beast's body limit). Two system calls per request
// where libcurl makes five (three polls). Built when Boost's headers are found
// (TYPESTAR_DIRECT_HTTP); else libcurl serves every host. Private to src/device.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace typestar::detail {

/// One attempt's end: an answer (status and body), or a failure that may be retried.
struct DirectOutcome {
    enum class Kind { Answer, Failed, OverCap };
    Kind kind = Kind::Failed;
    long status = 0;
    std::string body;  ///< the answer's body
    std::string what;  ///< Failed: what went wrong, for the message ("the agent closed the connection ...")
};

class DirectConnection {
public:
    /// `url` is "http://HOST[:PORT][/PATH]" with a loopback HOST (checked by the caller);
    /// `authorization` the whole header value ("Bearer ...").
    DirectConnection(const std::string& url, const std::string& authorization,
                     std::chrono::milliseconds connect_timeout, std::size_t max_answer_bytes);
    ~DirectConnection();
    DirectConnection(const DirectConnection&) = delete;
    DirectConnection& operator=(const DirectConnection&) = delete;

    /// One attempt of `method path` with `body` (sent unless GET), at most `timeout` for the
    /// answer. On a reused connection that the agent closed before answering (its keep-alive ran
    /// out), reconnects and sends once more, as libcurl does; `resent` counts those.
    DirectOutcome exchange(const char* method, const std::string& path, const std::string& body,
                           std::chrono::milliseconds timeout, std::size_t& resent);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace typestar::detail
