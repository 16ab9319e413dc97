// The kit's unit tests, on the lines recorded from real games in testdata/.
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
    std::vector<goatarena::Decide> requests;
    std::vector<goatarena::End> ends;
    std::string name() const override { return "fixture"; }
    void start(const goatarena::Start& s) override { starts.push_back(s); }
    int decide(const goatarena::Decide& d) override {
        requests.push_back(d);
        return static_cast<int>(d.actions.size()) - 1;
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

void recorded_games_are_answered_line_for_line() {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator("testdata")) {
        ++files;
        std::ifstream in(entry.path());
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
            const auto& request = bot.requests[i];
            const auto& answer = answers[i + 1];
            expect(answer["type"] == "action" && answer["index"] == request.actions.size() - 1 &&
                       answer["decision"] == request.decision,
                   file + ": the answer to decision " + std::to_string(request.decision));
            expect(request.time_ms > 0 && request.time_left().count() <= request.time_ms &&
                       request.observation.is_object(),
                   file + ": time and observation of decision " + std::to_string(request.decision));
        }
        expect(bot.starts.size() == 1 && bot.starts[0].game == game && bot.starts[0].players.size() == 2,
               file + ": start read");
        expect(bot.ends.size() == 1 && bot.ends[0].scores.size() == 2 && bot.ends[0].ranks.size() == 2,
               file + ": end read");
    }
    expect(files == 4, "the 4 recorded games are in testdata/");
}

void mountain_goats_observation_is_typed() {
    std::ifstream in("testdata/mountain-goats.jsonl");
    LastBot bot;
    std::ostringstream out;
    goatarena::serve(bot, in, out);
    std::mt19937_64 rng(1);
    for (const auto& request : bot.requests) {
        auto o = request.observation.get<goatarena::MountainGoatsObservation>();
        expect(o.seat == bot.starts.at(0).seat && o.dice.size() == 4 && o.steps.size() == 2 &&
                   o.heights.size() == 6,
               "observation of decision " + std::to_string(request.decision));
        std::vector<goatarena::MountainGoatsAction> actions;
        for (const auto& a : request.actions) actions.push_back(a.get<goatarena::MountainGoatsAction>());
        int chosen = goatarena::best_climb(o, actions, rng);
        expect(!actions[chosen].move.empty() || actions.size() == 1,
               "decision " + std::to_string(request.decision) + " climbs something");
    }
}

void best_climb_takes_the_summit_token() {
    goatarena::MountainGoatsObservation o;
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
    mountain_goats_observation_is_typed();
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
