// The goatarena bot protocol (docs/protocol.md) for C++17 with nlohmann-json: read the
// referee's JSON lines from stdin, hand start, decide and end to a Bot, write each answer
// to stdout as one flushed line.
#pragma once

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace goatarena {

using json = nlohmann::json;

/// A game's clock in milliseconds.
struct TimeControl {
    std::int64_t move_ms = 0;
    std::int64_t bank_ms = 0;
    std::int64_t increment_ms = 0;
};

/// The start of a game: the game, your seat and your seed.
struct Start {
    std::string game;
    int seat = 0;
    std::vector<std::string> players;
    TimeControl time;
    json options;
    std::string match;
    /// From 0 to 2^64-1: read as an unsigned 64-bit number, exactly.
    std::uint64_t seed = 0;
};

/// One public decision made since your previous decide; hidden parts are null.
struct Event {
    int seat = 0;
    json action;
};

/// A request for an action. The actions and the observation stay JSON: read them with the
/// game's types (mountain_goats.hpp).
struct Decide {
    int decision = 0;
    std::vector<json> actions;
    std::int64_t time_ms = 0;
    std::vector<Event> events;
    json observation;
    /// When the line was read: the decision's clock started just before.
    std::chrono::steady_clock::time_point received;

    /// The time left for this decision, measured from when its line was read.
    std::chrono::milliseconds time_left() const {
        auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - received);
        return std::chrono::milliseconds(time_ms) - spent;
    }
};

/// The result of a game.
struct End {
    std::vector<double> scores;
    std::vector<int> ranks;
    int seat = 0;
};

inline void from_json(const json& j, TimeControl& t) {
    j.at("move_ms").get_to(t.move_ms);
    j.at("bank_ms").get_to(t.bank_ms);
    j.at("increment_ms").get_to(t.increment_ms);
}

inline void from_json(const json& j, Start& s) {
    j.at("game").get_to(s.game);
    j.at("seat").get_to(s.seat);
    j.at("players").get_to(s.players);
    j.at("time").get_to(s.time);
    s.options = j.value("options", json::object());
    s.match = j.value("match", "");
    j.at("seed").get_to(s.seed);
}

inline void from_json(const json& j, Event& e) {
    j.at("seat").get_to(e.seat);
    e.action = j.at("action");
}

inline void from_json(const json& j, Decide& d) {
    j.at("decision").get_to(d.decision);
    d.actions = j.at("actions").get<std::vector<json>>();
    j.at("time_ms").get_to(d.time_ms);
    d.events = j.value("events", json::array()).get<std::vector<Event>>();
    d.observation = j.value("observation", json::object());
}

inline void from_json(const json& j, End& e) {
    j.at("scores").get_to(e.scores);
    j.at("ranks").get_to(e.ranks);
    j.at("seat").get_to(e.seat);
}

/// What a bot author writes: a name and what to do at each message.
class Bot {
public:
    virtual ~Bot() = default;
    /// Sent in the hello answer.
    virtual std::string name() const = 0;
    /// A game begins: reset per-game state here (one process plays many games).
    virtual void start(const Start& start) = 0;
    /// The index of the chosen action in request.actions.
    virtual int decide(const Decide& request) = 0;
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
        auto request = message.get<Decide>();
        request.received = received;
        int index = bot.decide(request);
        answer = {{"type", "action"}, {"index", index}, {"decision", request.decision}};
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

/// Plays on stdin and stdout until quit or the end of input.
inline int run(Bot& bot) {
    std::ios::sync_with_stdio(false);
    try {
        serve(bot, std::cin, std::cout);
    } catch (const std::exception& error) {
        log("stopped: ", error.what());
        return 1;
    }
    return 0;
}

}  // namespace goatarena
