package goatarena.kit;

import com.google.gson.JsonElement;
import com.google.gson.annotations.SerializedName;
import java.util.ArrayList;
import java.util.List;

/** Mountain Goats as a bot sees it (docs/games.md): the observation and the actions. */
public final class MountainGoats {
    private MountainGoats() {}

    /** What a seat sees in mountain-goats. */
    public static final class Observation {
        public int seat;

        @SerializedName("to_act")
        public int toAct;

        public int round;
        public int[] dice;
        public int[] mountains;
        public int[] heights;
        public int[][] steps;
        public int[] supply;
        public int[][] tokens;

        @SerializedName("bonus_left")
        public int[] bonusLeft;

        public int[][] bonuses;
        public int[] scores;
        public boolean ending;
    }

    /** One choice: the mountains to climb and the grouping of the dice that climbs them. */
    public static final class Action {
        public int[] move;
        public int[][] groups;
    }

    /** The request's observation, read as a mountain-goats one. */
    public static Observation observation(Agent.Decide request) {
        return Agent.read(request.observation, Observation.class);
    }

    /** The request's actions, read as mountain-goats ones. */
    public static List<Action> actions(Agent.Decide request) {
        List<Action> actions = new ArrayList<>();
        for (JsonElement action : request.actions) {
            actions.add(Agent.read(action, Action.class));
        }
        return actions;
    }
}
