// The example bot: a greedy climber in mountain-goats, uniformly random elsewhere.
// `make` builds ./bot; `goatarena check-bot ./bot` checks it.
#include <random>

#include "agent.hpp"
#include "strategy.hpp"

namespace {

class ExampleBot : public goatarena::Bot {
public:
    std::string name() const override { return "cpp-example"; }

    void start(const goatarena::Start& start) override {
        game_ = start.game;
        rng_.seed(start.seed);
    }

    int decide(const goatarena::Decide& request) override {
        if (game_ == "mountain-goats") {
            auto observation = request.observation.get<goatarena::MountainGoatsObservation>();
            std::vector<goatarena::MountainGoatsAction> actions;
            for (const auto& action : request.actions) actions.push_back(action.get<goatarena::MountainGoatsAction>());
            return goatarena::best_climb(observation, actions, rng_);
        }
        std::uniform_int_distribution<int> pick(0, static_cast<int>(request.actions.size()) - 1);
        return pick(rng_);
    }

    void end(const goatarena::End& end) override {
        goatarena::log("game over: rank ", end.ranks.at(end.seat), " of ", end.ranks.size());
    }

private:
    std::string game_;
    std::mt19937_64 rng_{1};
};

}  // namespace

int main() {
    ExampleBot bot;
    return goatarena::run(bot);
}
