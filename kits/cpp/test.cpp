// The kit's unit tests, on the lines recorded from real games in fixtures/.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "agent.hpp"
#include "strategy.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::cerr << "FAIL: " << what << '\n';
        ++failures;
    }
}

/// Answers every decide with its last action and keeps what it was told.
class LastBot : public goatarena::Bot {
public:
    std::vector<goatarena::Start> starts;
    std::vector<goatarena::Request> requests;
    std::vector<goatarena::End> ends;
    std::string name() const override { return "fixture"; }
    void start(const goatarena::Start& s) override { starts.push_back(s); }
    int decide(const goatarena::Request& d) override {
        requests.push_back(d);
        return static_cast<int>(d.message.actions.size()) - 1;
    }
    void end(const goatarena::End& e) override { ends.push_back(e); }
};

std::vector<goatarena::json> lines_of(const std::string& text) {
    std::vector<goatarena::json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) out.push_back(goatarena::json::parse(line));
    return out;
}

/// One recorded game (fixtures/<game>.json, written by kits/fixtures.py): the lines seat 0
/// was sent, joined as the referee wrote them, and the seed of its start as text.
struct Fixture {
    std::string input;
    std::string seed;
};

Fixture read_fixture(const std::filesystem::path& path) {
    std::ifstream file(path);
    auto recorded = goatarena::json::parse(file);
    Fixture fixture{"", recorded.at("seed").get<std::string>()};
    for (const auto& line : recorded.at("lines")) fixture.input += line.get<std::string>() + "\n";
    return fixture;
}

void recorded_games_are_answered_line_for_line() {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator("fixtures")) {
        if (entry.path().extension() != ".json") continue;
        ++files;
        Fixture fixture = read_fixture(entry.path());
        std::istringstream in(fixture.input);
        LastBot bot;
        std::ostringstream out;
        goatarena::serve(bot, in, out);
        auto answers = lines_of(out.str());
        std::string file = entry.path().filename().string();
        std::string game = entry.path().stem().string();
        expect(!answers.empty() && answers[0]["type"] == "hello" && answers[0]["name"] == "fixture",
               file + ": the first answer is hello");
        expect(!bot.requests.empty() && answers.size() == bot.requests.size() + 1,
               file + ": one answer per decide");
        for (std::size_t i = 0; i < bot.requests.size() && i + 1 < answers.size(); ++i) {
            const auto& request = bot.requests[i].message;
            const auto& answer = answers[i + 1];
            expect(answer["type"] == "action" && answer["index"] == request.actions.size() - 1 &&
                       answer["decision"] == request.decision,
                   file + ": the answer to decision " + std::to_string(request.decision));
            expect(request.time_ms > 0 && bot.requests[i].time_left().count() <= request.time_ms &&
                       !request.observation.empty(),
                   file + ": time and observation of decision " + std::to_string(request.decision));
        }
        expect(bot.starts.size() == 1 && bot.starts[0].game == game && bot.starts[0].players.size() == 2 &&
                   std::to_string(bot.starts[0].seed) == fixture.seed,
               file + ": start read, its seed exactly");
        expect(bot.ends.size() == 1 && bot.ends[0].scores.size() == 2 && bot.ends[0].ranks.size() == 2,
               file + ": end read");
    }
    expect(files == 4, "the 4 recorded games are in fixtures/");
}

LastBot recorded(const std::string& game) {
    std::istringstream in(read_fixture("fixtures/" + game + ".json").input);
    LastBot bot;
    std::ostringstream out;
    goatarena::serve(bot, in, out);
    return bot;
}

void mountain_goats_decide_is_typed() {
    LastBot bot = recorded("mountain-goats");
    expect(!bot.requests.empty(), "mountain-goats decides recorded");
    std::mt19937_64 rng(1);
    for (const auto& request : bot.requests) {
        auto typed = request.read<goatarena::MountainGoatsDecide>();
        const auto& o = typed.observation;
        std::string at = "decision " + std::to_string(typed.decision);
        expect(o.seat == bot.starts.at(0).seat && o.dice.size() == 4 && o.steps.size() == 2 &&
                   o.heights.size() == 6 && typed.actions.size() == request.message.actions.size(),
               "mountain-goats observation of " + at);
        int chosen = goatarena::best_climb(o, typed.actions, rng);
        expect(!typed.actions[static_cast<std::size_t>(chosen)].move.empty() || typed.actions.size() == 1,
               at + " climbs something");
    }
}

void card_games_decide_with_their_types() {
    int moves = 0;
    int words = 0;
    for (const auto& request : recorded("goat-lords").requests) {
        auto typed = request.read<goatarena::GoatLordsDecide>();
        expect(typed.observation.hand_sizes.size() == 2, "goat-lords hand sizes");
        for (const auto& action : typed.actions) {
            if (std::holds_alternative<goatarena::GoatLordsMove>(action)) ++moves;
            else ++words;
        }
    }
    expect(moves > 0, "goat-lords moves read");
    for (const auto& request : recorded("herr-der-ziegen").requests) {
        auto typed = request.read<goatarena::HerrDerZiegenDecide>();
        expect(typed.observation.size > 0 &&
                   static_cast<int64_t>(typed.observation.pasture.size()) == typed.observation.size,
               "herr-der-ziegen pasture");
    }
    for (const auto& request : recorded("goat-n-goat").requests) {
        auto typed = request.read<goatarena::GoatNGoatDecide>();
        expect(typed.observation.flocks.size() == 2, "goat-n-goat flocks");
    }
}

void best_climb_takes_the_summit_token() {
    goatarena::MountainGoatsObservation o{};
    o.seat = 0;
    o.mountains = {5, 6, 7, 8, 9, 10};
    o.heights = {4, 4, 3, 3, 2, 2};
    o.steps = {{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}};
    o.supply = {10, 9, 8, 7, 6, 5};
    std::vector<goatarena::MountainGoatsAction> actions(4);
    actions[1].move = {5, 5};
    actions[2].move = {10};
    actions[3].move = {6};
    std::mt19937_64 rng(1);
    expect(goatarena::best_climb(o, actions, rng) == 2, "climbs to 10's summit");
    o.supply[5] = 0;
    expect(goatarena::best_climb(o, actions, rng) == 1, "with 10's tokens gone, climbs 5 twice");
}

void seed_above_int64_is_exact() {
    std::istringstream in(
        R"({"type":"start","game":"mountain-goats","seat":1,"players":["a","b"],)"
        R"("time":{"move_ms":1000,"bank_ms":0,"increment_ms":0},"options":{},"match":"","seed":18446744073709551615})"
        "\n");
    LastBot bot;
    std::ostringstream out;
    goatarena::serve(bot, in, out);
    expect(bot.starts.size() == 1 && bot.starts[0].seed == std::numeric_limits<std::uint64_t>::max(),
           "the seed 2^64-1 is read exactly");
}

void unknown_messages_and_fields_are_skipped() {
    std::istringstream in(
        R"({"type":"news","decide":{"type":"decide"}})"
        "\n"
        R"({"type":"decide","decision":4,"actions":["a","b"],"time_ms":50,"events":[],"observation":{},"later":[1]})"
        "\n"
        R"({"type":"quit"})"
        "\n"
        R"({"type":"decide","decision":5,"actions":["a"],"time_ms":50,"events":[],"observation":{}})"
        "\n");
    LastBot bot;
    std::ostringstream out;
    goatarena::serve(bot, in, out);
    expect(out.str() == "{\"decision\":4,\"index\":1,\"type\":\"action\"}\n", "answered " + out.str());
}

}  // namespace

int main() {
    recorded_games_are_answered_line_for_line();
    mountain_goats_decide_is_typed();
    card_games_decide_with_their_types();
    best_climb_takes_the_summit_token();
    seed_above_int64_is_exact();
    unknown_messages_and_fields_are_skipped();
    if (failures) {
        std::cerr << failures << " failed\n";
        return 1;
    }
    std::cout << "all tests passed\n";
    return 0;
}
