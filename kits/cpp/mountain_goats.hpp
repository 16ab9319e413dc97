// Mountain Goats as a bot sees it (docs/games.md): the observation and the actions.
#pragma once

#include <vector>

#include "agent.hpp"

namespace goatarena {

/// What a seat sees in mountain-goats.
struct MountainGoatsObservation {
    int seat = 0;
    int to_act = 0;
    int round = 0;
    std::vector<int> dice;
    std::vector<int> mountains;
    std::vector<int> heights;
    std::vector<std::vector<int>> steps;
    std::vector<int> supply;
    std::vector<std::vector<int>> tokens;
    std::vector<int> bonus_left;
    std::vector<std::vector<int>> bonuses;
    std::vector<int> scores;
    bool ending = false;
};

/// One choice: the mountains to climb and the grouping of the dice that climbs them.
struct MountainGoatsAction {
    std::vector<int> move;
    std::vector<std::vector<int>> groups;
};

inline void from_json(const json& j, MountainGoatsObservation& o) {
    j.at("seat").get_to(o.seat);
    j.at("to_act").get_to(o.to_act);
    j.at("round").get_to(o.round);
    j.at("dice").get_to(o.dice);
    j.at("mountains").get_to(o.mountains);
    j.at("heights").get_to(o.heights);
    j.at("steps").get_to(o.steps);
    j.at("supply").get_to(o.supply);
    j.at("tokens").get_to(o.tokens);
    j.at("bonus_left").get_to(o.bonus_left);
    j.at("bonuses").get_to(o.bonuses);
    j.at("scores").get_to(o.scores);
    j.at("ending").get_to(o.ending);
}

inline void from_json(const json& j, MountainGoatsAction& a) {
    j.at("move").get_to(a.move);
    j.at("groups").get_to(a.groups);
}

}  // namespace goatarena
