// The example bot's mountain-goats heuristic: climb where a climb is worth most.
#pragma once

#include <map>
#include <random>
#include <vector>

#include "goatarena/protocol.hpp"

namespace goatarena {

/// What one more step on mountain index `i` is worth from `step`: the mountain's points
/// when it takes a token now (the goat reaches or is on the summit), less the further the
/// goat is from the summit, nothing once the mountain's tokens are gone.
inline double climb_worth(const MountainGoatsObservation& o, const std::vector<int64_t>& step, std::size_t i) {
    if (o.supply[i] == 0) return 0.0;
    double points = static_cast<double>(o.mountains[i]);
    int64_t height = o.heights[i];
    if (step[i] >= height - 1) return points;
    return points * static_cast<double>(step[i] + 1) / static_cast<double>(height) / 2.0;
}

/// The index of the move whose climbs are worth most, ties broken at random.
inline int best_climb(const MountainGoatsObservation& o, const std::vector<MountainGoatsAction>& actions,
                      std::mt19937_64& rng) {
    std::map<int64_t, std::size_t> index;
    for (std::size_t i = 0; i < o.mountains.size(); ++i) index[o.mountains[i]] = i;
    std::uniform_real_distribution<double> jitter(0.0, 0.01);
    int best = 0;
    double best_worth = -1.0;
    for (std::size_t choice = 0; choice < actions.size(); ++choice) {
        std::vector<int64_t> step = o.steps.at(static_cast<std::size_t>(o.seat));
        double worth = jitter(rng);
        for (int64_t mountain : actions[choice].move) {
            std::size_t i = index.at(mountain);
            worth += climb_worth(o, step, i);
            if (step[i] < o.heights[i]) ++step[i];
        }
        if (worth > best_worth) {
            best = static_cast<int>(choice);
            best_worth = worth;
        }
    }
    return best;
}

}  // namespace goatarena
