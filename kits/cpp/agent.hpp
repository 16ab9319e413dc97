// The goatarena bot protocol (docs/protocol.md) for C++17 with nlohmann-json: read the
// referee's JSON lines from stdin, hand start, decide and end to a Bot, write each answer
// to stdout as one flushed line. The messages are the types generated from the schema
// (include/goatarena/protocol.hpp).
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "goatarena/protocol.hpp"

namespace goatarena {

using json = nlohmann::json;

/// A request for an action: the generic decide message (its actions and observation as
/// plain JSON) and the whole line, to read again with the game's generated types:
/// `request.read<MountainGoatsDecide>()`.
struct Request {
    Decide message;
    /// The decide line as parsed JSON.
    json line;
    /// When the line was read: the decision's clock started just before.
    std::chrono::steady_clock::time_point received;

    /// The line read as one of the game's types (`<Game>Decide`, protocol.hpp).
    template <typename GameDecide>
    GameDecide read() const {
        return line.get<GameDecide>();
    }

    /// The time left for this decision, measured from when its line was read.
    std::chrono::milliseconds time_left() const {
        auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - received);
        return std::chrono::milliseconds(message.time_ms) - spent;
    }
};

/// What a bot author writes: a name and what to do at each message.
class Bot {
public:
    virtual ~Bot() = default;
    /// Sent in the hello answer.
    virtual std::string name() const = 0;
    /// A game begins: reset per-game state here (one process plays many games).
    virtual void start(const Start& start) = 0;
    /// The index of the chosen action in request.message.actions.
    virtual int decide(const Request& request) = 0;
    /// A game ended.
    virtual void end(const End&) {}
};

/// Writes one line to stderr, the bot's own log (the referee keeps it, never parses it).
template <typename... Parts>
void log(const Parts&... parts) {
    (std::cerr << ... << parts) << std::endl;
}

/// Answers one line of the referee on `out`; returns false once it was quit.
inline bool handle(Bot& bot, const std::string& line, std::ostream& out) {
    auto received = std::chrono::steady_clock::now();
    json message = json::parse(line);
    std::string type = message.value("type", "");
    json answer;
    if (type == "hello") {
        answer = {{"type", "hello"}, {"name", bot.name()}, {"protocol", 1}};
    } else if (type == "start") {
        bot.start(message.get<Start>());
    } else if (type == "decide") {
        Request request{message.get<Decide>(), std::move(message), received};
        int index = bot.decide(request);
        answer = {{"type", "action"}, {"index", index}, {"decision", request.message.decision}};
    } else if (type == "end") {
        bot.end(message.get<End>());
    } else if (type == "quit") {
        return false;
    }
    // Any other type is skipped, as the protocol asks.
    if (!answer.is_null()) {
        // A buffered answer is a late answer: flush every line.
        out << answer.dump() << '\n' << std::flush;
    }
    return true;
}

/// Plays on `in` and `out` until quit or the end of input.
inline void serve(Bot& bot, std::istream& in, std::ostream& out) {
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (!handle(bot, line, out)) return;
    }
}

/// An output buffer that writes to a file descriptor of its own: the answers' private
/// copy of stdout (see run).
class FdBuffer : public std::streambuf {
public:
    explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
    ~FdBuffer() override { sync(); }

protected:
    int_type overflow(int_type c) override {
        if (sync() != 0) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }

    int sync() override {
        const char* data = pbase();
        while (data < pptr()) {
            const ssize_t written = ::write(fd_, data, static_cast<std::size_t>(pptr() - data));
            if (written < 0) {
                if (errno == EINTR) continue;
                return -1;
            }
            data += written;
        }
        setp(buffer_, buffer_ + sizeof buffer_);
        return 0;
    }

private:
    int fd_;
    char buffer_[1 << 16];
};

/// Plays on stdin and stdout until quit or the end of input.
///
/// The answers go out on a private copy of stdout, and stdout itself is pointed at stderr:
/// whatever the bot prints (std::cout, printf, a child process) goes to its log and can
/// never land inside an answer.
inline int run(Bot& bot) {
    std::ios::sync_with_stdio(false);
    // Not inherited by the bot's children: they may print, but never answer.
    const int answers_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    const bool kept = answers_fd >= 0 && ::dup2(2, 1) >= 0;
    if (answers_fd >= 0 && !kept) ::close(answers_fd);
    try {
        if (kept) {
            FdBuffer buffer(answers_fd);
            std::ostream answers(&buffer);
            serve(bot, std::cin, answers);
        } else {
            serve(bot, std::cin, std::cout);
        }
    } catch (const std::exception& error) {
        log("stopped: ", error.what());
        return 1;
    }
    return 0;
}

}  // namespace goatarena
