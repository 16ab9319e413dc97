package goatarena.kit;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The example bot: a greedy climber in mountain-goats, uniformly random elsewhere. {@code make}
 * builds it; {@code ./bot} runs it.
 */
public final class ExampleBot implements Agent.Bot {
    private String game = "";
    private SplittableRandom rng = new SplittableRandom(1);

    @Override
    public String name() {
        return "java-example";
    }

    @Override
    public void start(Agent.Start start) {
        game = start.game;
        rng = new SplittableRandom(start.seed);
    }

    @Override
    public int decide(Agent.Decide request) {
        if (game.equals("mountain-goats")) {
            return bestClimb(MountainGoats.observation(request), MountainGoats.actions(request), rng);
        }
        return rng.nextInt(request.actions.size());
    }

    @Override
    public void end(Agent.End end) {
        Agent.log("game over: scores " + Arrays.toString(end.scores) + ", ranks " + Arrays.toString(end.ranks));
    }

    /**
     * What one more step on mountain index i is worth from step: the mountain's points when it
     * takes a token now (the goat reaches or is on the summit), less the further the goat is
     * from the summit, nothing once the mountain's tokens are gone.
     */
    static double climbWorth(MountainGoats.Observation o, int[] step, int i) {
        if (o.supply[i] == 0) {
            return 0;
        }
        double points = o.mountains[i];
        int height = o.heights[i];
        if (step[i] >= height - 1) {
            return points;
        }
        return points * (step[i] + 1) / height / 2;
    }

    /** The index of the move whose climbs are worth most, ties broken at random. */
    static int bestClimb(MountainGoats.Observation o, List<MountainGoats.Action> actions, SplittableRandom rng) {
        int best = 0;
        double bestWorth = -1;
        for (int choice = 0; choice < actions.size(); choice++) {
            int[] step = o.steps[o.seat].clone();
            double worth = rng.nextDouble() * 0.01;
            for (int mountain : actions.get(choice).move) {
                int i = indexOf(o.mountains, mountain);
                worth += climbWorth(o, step, i);
                if (step[i] < o.heights[i]) {
                    step[i]++;
                }
            }
            if (worth > bestWorth) {
                best = choice;
                bestWorth = worth;
            }
        }
        return best;
    }

    private static int indexOf(int[] values, int value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        throw new IllegalArgumentException("no mountain " + value);
    }

    /** Plays until quit. */
    public static void main(String[] args) throws IOException {
        Agent.run(new ExampleBot());
    }
}
