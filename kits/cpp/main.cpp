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

    int decide(const goatarena::Request& request) override {
        if (game_ == "mountain-goats") {
            auto typed = request.read<goatarena::MountainGoatsDecide>();
            return goatarena::best_climb(typed.observation, typed.actions, rng_);
        }
        std::uniform_int_distribution<int> pick(0, static_cast<int>(request.message.actions.size()) - 1);
        return pick(rng_);
    }

    void end(const goatarena::End& end) override {
        goatarena::log("game over: rank ", end.ranks.at(static_cast<std::size_t>(end.seat)), " of ", end.ranks.size());
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
